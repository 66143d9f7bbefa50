/**
 * A whole trading day and the next open on the accelerated clock (40 sandbox minutes per wall second, the
 * clock standing at its start until the sandbox is ready): the calendar, not the test, moves the day on.
 * From Monday 2 March 2026 05:00 Berlin time: closed, the 08:00 open, trades on both chains, a volatility
 * halt and its automatic resume, the 17:00 close with the reference price moved to the last execution price,
 * clearing of the day orders `ByContract`, and Tuesday's open with the halt counter reset. The test only
 * waits for what the venue shows (REST and the contracts), each wait bounded.
 */
import { describe, expect, it } from 'vitest';
import { connectionProtocols } from '../../../../src/venue/market-data/subscribe-messages.ts';
import { EventsProbe } from '../../../support/sandbox/events-probe.ts';
import { control, get, until, type Json } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';
import { BOND, FUND, tradingDay } from '../../../support/sandbox/venue/trading-day-steps.ts';

/**
 * Sandbox milliseconds per wall millisecond: a day passes in 36 s, and the test has 12 s of wall time between
 * the open and the last halt that still resumes (16:30), for its trades on a loaded machine.
 */
const SPEED = 2_400;
/** Wall time a calendar step may take: the longest gap (17:00 to 08:00) is 22.5 s at this speed. */
const STEP_MS = 40_000;

const session = tradersSession({
  trading: { mode: 'calendar', tickMs: 50 },
  clock: { mode: 'accelerated', speed: SPEED, start: '2026-03-02T04:00:00Z' },
});
const day = tradingDay(session);

const bothStatuses = async () => [await day.statusOf(BOND), await day.statusOf(FUND)];
const venueStatus = async () => (await control(session.sb, 'GET', '/status')).body;
const bondStatus = async () => (await venueStatus()).pairs.find((p: Json) => p.id === BOND);

describe('a trading day on the accelerated clock', () => {
  it(
    'starts at its start instant, before the open, with the books closed',
    async () => {
      const clock = (await venueStatus()).clock;
      expect({ mode: clock.mode, speed: clock.speed }).toEqual({ mode: 'accelerated', speed: SPEED });
      // Start-up took seconds of wall time, but the clock only began at ready: it is still before 08:00.
      expect(Date.parse(clock.now)).toBeLessThan(Date.parse('2026-03-02T07:00:00Z'));
      expect(await bothStatuses()).toEqual([
        ['OUT_OF_TRADING', 'END_OF_TRADING_DAY'],
        ['OUT_OF_TRADING', 'END_OF_TRADING_DAY'],
      ]);
      expect([await day.evmPhase(), await day.wasmPhase()]).toEqual([2, 'ClosedForTrading']);
      await Promise.all([
        session.t.evmApproveAll('evm-trader'),
        session.t.evmApproveAll('evm-mm'),
        session.t.wasmApprove('wasm-trader', 'FUND1EURe'),
        session.t.wasmApprove('wasm-mm', 'FUND1EURe'),
      ]);
    },
    STEP_MS,
  );

  it(
    'opens by itself at 08:00 Berlin time',
    async () => {
      await until(bothStatuses, (s) => s.every(([status]) => status === 'CONTINUOUS_TRADING'), 'the open', STEP_MS);
      expect(await bothStatuses()).toEqual([
        ['CONTINUOUS_TRADING', 'START_OF_TRADING_DAY'],
        ['CONTINUOUS_TRADING', 'START_OF_TRADING_DAY'],
      ]);
      expect(Date.parse((await day.pair(BOND)).modificationDate)).toBe(Date.parse('2026-03-02T07:00:00Z'));
      expect([await day.evmPhase(), await day.wasmPhase()]).toEqual([1, 'OpenForTrading']);
    },
    STEP_MS,
  );

  it(
    'trades on both chains and keeps the day orders resting',
    async () => {
      await day.tradeAndRest();
      expect(await day.lastTrades()).toEqual([
        { lastPrice: '100.5', tradeVolume24h: '1' },
        { lastPrice: '12.4', tradeVolume24h: '1' },
      ]);
    },
    STEP_MS,
  );

  it(
    'halts on a volatility rejection and resumes by itself after the pause',
    async () => {
      // The buy crossing the sell at 106 would execute 5.5 % above the last price: the book rejects it and halts.
      await session.t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '106');
      const halted = await until(bondStatus, (p) => p.tradingHaltCounter === 1, 'the automatic halt', STEP_MS);
      expect(halted.statusChangeReason === 'VOLATILITY_HALT' || halted.statusChangeReason === 'AUTOMATIC_RESUME').toBe(
        true,
      );
      // The pause is 5.5 sandbox minutes: under a seventh of a wall second.
      await until(
        () => day.statusOf(BOND),
        (s) => s[1] === 'AUTOMATIC_RESUME',
        'the automatic resume',
        STEP_MS,
      );
      expect(await day.statusOf(BOND)).toEqual(['CONTINUOUS_TRADING', 'AUTOMATIC_RESUME']);
      expect(await day.evmPhase()).toBe(1);
    },
    STEP_MS,
  );

  it(
    'closes at 17:00 and moves the static reference price to the last execution price',
    async () => {
      await until(bothStatuses, (s) => s.every(([status]) => status === 'OUT_OF_TRADING'), 'the close', STEP_MS);
      expect([(await day.pair(BOND)).staticReferencePrice, (await day.pair(FUND)).staticReferencePrice]).toEqual([
        '100.5',
        '12.4',
      ]);
      expect(await session.t.book('BOND26EURe').getFunction('getStaticRefPrice').staticCall()).toBe(1_005_000n);
      expect(await session.t.wasmView('FUND1EURe', 'get_static_reference_price')).toBe(124_000n);
    },
    STEP_MS,
  );

  it(
    'clears the day orders ByContract after the close',
    async () => {
      await until(venueStatus, (s) => s.clearings === 1, 'the clearing', STEP_MS);
      for (const id of [BOND, FUND]) {
        await until(
          () => get(session.sb, `/tradingpairs/${id}/orderbook`),
          (r) => r.body.buy.length + r.body.sell.length === 0,
          `${id} cleared`,
          STEP_MS,
        );
      }
      expect(await day.cancellationsOnChain()).toEqual(day.clearedByContract());
    },
    STEP_MS,
  );

  it(
    'checks the market-data authorization date against wall time, however far the venue clock has run',
    async () => {
      // The venue clock is months away from the wall clock here: a client dates its authorization by its own clock.
      const auth = (nowMs: number) => ({
        host: session.sb.manifest.venue.wsHost,
        apiKey: session.sb.manifest.venue.apiKey,
        dateHeader: session.sb.manifest.venue.dateHeader,
        nowMs,
      });
      const answer = async (nowMs: number) => {
        const p = await EventsProbe.raw(
          session.sb.manifest.venue.wsUrl,
          connectionProtocols(auth(nowMs), nowMs),
          auth(nowMs),
        );
        try {
          p.send({ type: 'connection_init' });
          return (await p.waitFor((m) => m.type !== undefined, 'answer')).type;
        } finally {
          p.close();
        }
      };
      expect(Math.abs(session.sb.clock.nowMs() - Date.now())).toBeGreaterThan(3_600_000);
      expect(await answer(Date.now())).toBe('connection_ack');
      expect(await answer(session.sb.clock.nowMs())).toBe('connection_error');
    },
    STEP_MS,
  );

  it(
    'opens the next trading day by itself with the halt counter reset',
    async () => {
      await until(
        bothStatuses,
        (s) => s.every(([status]) => status === 'CONTINUOUS_TRADING'),
        "Tuesday's open",
        STEP_MS,
      );
      expect(Date.parse((await day.pair(BOND)).modificationDate)).toBe(Date.parse('2026-03-03T07:00:00Z'));
      expect([(await bondStatus()).tradingHaltCounter, await day.evmPhase(), await day.wasmPhase()]).toEqual([
        0,
        1,
        'OpenForTrading',
      ]);
    },
    STEP_MS,
  );
});
