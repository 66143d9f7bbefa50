/**
 * One simulated trading day of a calendar-mode sandbox, driven by its clock through the control endpoint
 * (Monday 2 March 2026, Europe/Berlin): out of trading before 08:00, the open, trades on both chains, a
 * volatility halt the order book triggers itself and its automatic resume after the first pause, a second
 * halt with the longer pause, a late halt that is not resumed, the 17:00 close (static reference price =
 * last execution price, on the contracts too), clearing of the GFD orders `ByContract` five minutes later,
 * and the next day's open. Every step is checked in REST and in the contracts' phases.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, control, get, until, type Json } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';
import { BOND, FUND, tradingDay } from '../../../support/sandbox/venue/trading-day-steps.ts';

const session = tradersSession({
  trading: { mode: 'calendar' },
  clock: { mode: 'manual', start: '2026-03-02T06:58:00Z' },
});
const day = tradingDay(session);

beforeAll(async () => {
  await Promise.all([
    session.t.evmApproveAll('evm-trader'),
    session.t.evmApproveAll('evm-mm'),
    session.t.wasmApprove('wasm-trader', 'FUND1EURe'),
    session.t.wasmApprove('wasm-mm', 'FUND1EURe'),
  ]);
});

const setClock = (time: string) => control(session.sb, 'POST', '/clock/set', { time });
const advance = (body: Record<string, number>) => control(session.sb, 'POST', '/clock/advance', body);
const halts = async () => (await get(session.sb, `/tradingpairs/${BOND}/tradeinfo`)).body.tradingHaltCounter;

/** The crossing buy at 106 executes 5.5 % above the last price: the book rejects it and halts itself. */
async function triggerHalt(): Promise<void> {
  await session.t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '106');
  await until(
    () => day.statusOf(BOND),
    (s) => s[0] === 'AUTOMATIC_TRADING_HALT',
    'the automatic halt',
  );
}

describe('a trading day', () => {
  it('is out of trading before the open, with the books closed', async () => {
    expect(await day.statusOf(BOND)).toEqual(['OUT_OF_TRADING', 'END_OF_TRADING_DAY']);
    expect([await day.evmPhase(), await day.wasmPhase()]).toEqual([2, 'ClosedForTrading']);
    await expect(session.t.evmOrder('evm-trader', 'BOND26EURe', 'sell', '1', '100')).rejects.toThrow(/revert|failed/);
  });

  it('opens at 08:00 Berlin time', async () => {
    expect((await setClock('2026-03-02T07:00:00Z')).body.now).toBe('2026-03-02T07:00:00.000Z');
    for (const id of [BOND, FUND]) {
      expect(await day.pair(id)).toMatchObject({
        tradingStatus: 'CONTINUOUS_TRADING',
        statusChangeReason: 'START_OF_TRADING_DAY',
        modificationDate: '2026-03-02T07:00:00.000Z',
      });
    }
    expect([await day.evmPhase(), await day.wasmPhase()]).toEqual([1, 'OpenForTrading']);
  });

  it('trades on both chains and keeps the day orders resting', async () => {
    await day.tradeAndRest();
    expect(await day.lastTrades()).toEqual([
      { lastPrice: '100.5', tradeVolume24h: '1' },
      { lastPrice: '12.4', tradeVolume24h: '1' },
    ]);
  });

  it('halts on a volatility rejection and resumes automatically after the first pause', async () => {
    await advance({ hours: 1 });
    await triggerHalt();
    expect(await day.statusOf(BOND)).toEqual(['AUTOMATIC_TRADING_HALT', 'VOLATILITY_HALT']);
    expect([await halts(), await day.evmPhase()]).toEqual([1, 4]);
    expect(await day.statusOf(FUND)).toEqual(['CONTINUOUS_TRADING', 'START_OF_TRADING_DAY']);
    const resumeAt = (await control(session.sb, 'GET', '/status')).body.pairs.find((p: Json) => p.id === BOND).resumeAt;
    expect(Date.parse(resumeAt) - session.sb.clock.nowMs()).toBe(330_000);
    // Trade info says the expected end too, as the venue's documentation has it.
    expect((await get(session.sb, `/tradingpairs/${BOND}/tradeinfo`)).body.estimatedTradingHaltEnd).toBe(resumeAt);
    await advance({ minutes: 5 });
    expect((await day.statusOf(BOND))[0]).toBe('AUTOMATIC_TRADING_HALT');
    await advance({ seconds: 30 });
    expect(await day.statusOf(BOND)).toEqual(['CONTINUOUS_TRADING', 'AUTOMATIC_RESUME']);
    expect([await halts(), await day.evmPhase()]).toEqual([1, 1]);
  });

  it('waits the longer pause after the second halt of the day', async () => {
    await triggerHalt();
    expect(await halts()).toBe(2);
    await advance({ minutes: 15 });
    expect((await day.statusOf(BOND))[0]).toBe('AUTOMATIC_TRADING_HALT');
    await advance({ seconds: 30 });
    expect(await day.statusOf(BOND)).toEqual(['CONTINUOUS_TRADING', 'AUTOMATIC_RESUME']);
  });

  it('does not resume a halt within 30 minutes of the close', async () => {
    await setClock('2026-03-02T15:45:00Z');
    await triggerHalt();
    expect((await control(session.sb, 'GET', '/status')).body.pairs.find((p: Json) => p.id === BOND)).toMatchObject({
      tradingHaltCounter: 3,
      resumeAt: null,
    });
    await advance({ minutes: 14 });
    expect((await day.statusOf(BOND))[0]).toBe('AUTOMATIC_TRADING_HALT');
  });

  it('closes at 17:00 and moves the static reference price to the last execution price', async () => {
    await setClock('2026-03-02T16:00:00Z');
    for (const id of [BOND, FUND]) expect(await day.statusOf(id)).toEqual(['OUT_OF_TRADING', 'END_OF_TRADING_DAY']);
    expect([(await day.pair(BOND)).staticReferencePrice, (await day.pair(FUND)).staticReferencePrice]).toEqual([
      '100.5',
      '12.4',
    ]);
    expect((await get(session.sb, `/tradingpairs/${FUND}/tradeinfo`)).body.referencePrice).toBe('12.4');
    expect(await session.t.book('BOND26EURe').getFunction('getStaticRefPrice').staticCall()).toBe(1_005_000n);
    expect(await session.t.wasmView('FUND1EURe', 'get_static_reference_price')).toBe(124_000n);
    expect([await day.evmPhase(), await day.wasmPhase()]).toEqual([2, 'ClosedForTrading']);
    expect((await get(session.sb, `/tradingpairs/${BOND}/orderbook`)).body.buy).toHaveLength(1);
  });

  it('clears the day orders ByContract five minutes after the close', async () => {
    await advance({ minutes: 4 });
    expect((await control(session.sb, 'GET', '/status')).body.clearings).toBe(0);
    await advance({ minutes: 1 });
    expect((await control(session.sb, 'GET', '/status')).body.clearings).toBe(1);
    // Chain B shows the operator's clearing with the next ledger close.
    for (const id of [BOND, FUND]) {
      const book = await until(
        () => get(session.sb, `/tradingpairs/${id}/orderbook`),
        (r) => r.body.buy.length + r.body.sell.length === 0,
        `${id} cleared`,
      );
      expect(book.body).toEqual({ tradingPairId: id, buy: [], sell: [] });
    }
    expect(await day.cancellationsOnChain()).toEqual(day.clearedByContract());
    await until(
      () => get(session.sb, `/participants/${session.sb.manifest.venue.participantId}/orders`, bearer(session.sb)),
      (r) => r.body.items.length === 0,
      'the order list to empty',
    );
  });

  it('opens the next trading day with the halt counter reset', async () => {
    await setClock('2026-03-03T07:00:00Z');
    for (const id of [BOND, FUND])
      expect(await day.statusOf(id)).toEqual(['CONTINUOUS_TRADING', 'START_OF_TRADING_DAY']);
    expect([await halts(), await day.evmPhase(), await day.wasmPhase()]).toEqual([0, 1, 'OpenForTrading']);
  });
});
