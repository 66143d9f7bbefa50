/**
 * The trading scheduler on its own (no chains: book operators that record their calls): calendar boundaries
 * acted on in time order however far the clock jumps (weekends, holidays, daylight saving), manual actions,
 * and the automatic-halt rules (pause by halt number, no resume near the close, always-open mode).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CALENDAR } from '../../../../src/core/calendar.ts';
import type { Phase } from '../../../../src/sandbox/matching/types.ts';
import type { BookOperator } from '../../../../src/sandbox/venue/book-operator.ts';
import { TradingScheduler, type TradingMode } from '../../../../src/sandbox/venue/scheduler.ts';
import { FIRST_PAIR, firstPairState } from '../../../support/sandbox/venue-state.ts';

const def = FIRST_PAIR;

function setup(mode: TradingMode, startIso: string, holidays: string[] = []) {
  const calls: string[] = [];
  let phase: Phase = 'open';
  const operator: BookOperator = {
    chain: 'evm',
    setPhase: async (p) => {
      phase = p;
      calls.push(`phase ${p}`);
    },
    setStaticReferencePrice: async (raw) => {
      calls.push(`reference ${raw}`);
    },
    clearOrders: async () => {
      calls.push('clear');
    },
    readPhase: async () => phase,
    readLastPrice: async () => 1_012_000n,
  };
  const { state, market } = firstPairState('OUT_OF_TRADING', 'TRADING_PAIR_CREATION');
  let now = Date.parse(startIso);
  const scheduler = new TradingScheduler({
    state,
    operators: new Map([[def.pair.id, operator]]),
    nowMs: () => now,
    mode,
    calendar: { ...DEFAULT_CALENDAR, holidays },
    firstHaltPauseMs: 330_000,
    secondHaltPauseMs: 930_000,
    resumeCutoffMs: 1_800_000,
    tickMs: 3_600_000,
  });
  const pair = () => state.pair(def.pair.id)?.status;
  const at = async (iso: string) => {
    now = Date.parse(iso);
    await scheduler.tick();
  };
  /** The book halts itself and the indexer reports the volatility rejection. */
  const volatility = async (halted = true) => {
    if (halted) phase = 'automaticHalt';
    market.apply(
      { type: 'OrderRejected', client: 'x', orderId: 1n, reason: 5, quantityNotExecuted: 1n, side: 1, price: 1n },
      now,
    );
    await scheduler.tick();
  };
  return { scheduler, calls, pair, at, volatility, now: () => now };
}

describe('calendar boundaries', () => {
  it('acts on close, clearing and the next open in order across a weekend and a holiday', async () => {
    const s = setup('calendar', '2026-03-06T10:00:00Z', ['2026-03-09']);
    await s.scheduler.start();
    expect(s.pair()?.tradingStatus).toBe('CONTINUOUS_TRADING');
    s.calls.length = 0;
    await s.at('2026-03-09T12:00:00Z');
    expect([s.calls, s.pair()?.tradingStatus, s.pair()?.statusChangeReason]).toEqual([
      ['reference 1012000', 'phase closed', 'clear'],
      'OUT_OF_TRADING',
      'END_OF_TRADING_DAY',
    ]);
    expect(s.pair()?.staticReferencePrice.toFixed()).toBe('101.2');
    expect(new Date(s.pair()?.changedAtMs ?? 0).toISOString()).toBe('2026-03-06T16:00:00.000Z');
    await s.at('2026-03-10T07:00:00Z');
    expect([s.calls.at(-1), s.pair()?.statusChangeReason, new Date(s.pair()?.changedAtMs ?? 0).toISOString()]).toEqual([
      'phase open',
      'START_OF_TRADING_DAY',
      '2026-03-10T07:00:00.000Z',
    ]);
    await s.scheduler.stop();
  });

  it('follows daylight saving: 08:00 Berlin is 07:00 UTC in winter and 06:00 UTC in summer', async () => {
    const s = setup('calendar', '2026-03-27T20:00:00Z');
    await s.scheduler.start();
    await s.at('2026-03-30T05:59:00Z');
    expect(s.pair()?.tradingStatus).toBe('OUT_OF_TRADING');
    await s.at('2026-03-30T06:00:00Z');
    expect(s.pair()?.tradingStatus).toBe('CONTINUOUS_TRADING');
  });

  it('keeps a manual open at night until the next close, and refuses to resume a pair that is not halted', async () => {
    const s = setup('calendar', '2026-03-02T20:00:00Z');
    await s.scheduler.start();
    await s.scheduler.open(def.pair.id);
    await s.at('2026-03-03T03:00:00Z');
    expect([s.pair()?.tradingStatus, s.pair()?.statusChangeReason]).toEqual([
      'CONTINUOUS_TRADING',
      'MANUAL_MARKET_OPEN',
    ]);
    await expect(s.scheduler.resume(def.pair.id)).rejects.toThrow(/not halted/);
    await s.scheduler.halt(def.pair.id);
    await s.at('2026-03-03T16:01:00Z');
    expect(s.pair()?.tradingStatus).toBe('MANUAL_TRADING_HALT');
    await s.scheduler.resume(def.pair.id);
    expect(s.pair()?.tradingStatus).toBe('CONTINUOUS_TRADING');
  });
});

describe('automatic halts', () => {
  it('resumes after the first pause, then after the longer second pause, and not near the close', async () => {
    const s = setup('calendar', '2026-03-02T08:00:00Z');
    await s.scheduler.start();
    await s.volatility();
    expect([s.pair()?.tradingStatus, s.pair()?.tradingHaltCounter, s.scheduler.resumeAt(def.pair.id)]).toEqual([
      'AUTOMATIC_TRADING_HALT',
      1,
      s.now() + 330_000,
    ]);
    await s.at('2026-03-02T08:05:29Z');
    expect(s.pair()?.tradingStatus).toBe('AUTOMATIC_TRADING_HALT');
    await s.at('2026-03-02T08:05:30Z');
    expect([s.pair()?.tradingStatus, s.pair()?.statusChangeReason]).toEqual(['CONTINUOUS_TRADING', 'AUTOMATIC_RESUME']);
    await s.volatility();
    expect([s.pair()?.tradingHaltCounter, s.scheduler.resumeAt(def.pair.id)]).toEqual([2, s.now() + 930_000]);
    await s.at('2026-03-02T15:40:00Z');
    await s.volatility();
    expect([s.pair()?.tradingHaltCounter, s.scheduler.resumeAt(def.pair.id)]).toEqual([3, undefined]);
    await s.at('2026-03-03T07:00:00Z');
    expect([s.pair()?.tradingStatus, s.pair()?.tradingHaltCounter]).toEqual(['CONTINUOUS_TRADING', 0]);
  });

  it('ignores a rejection when the book did not halt, and always resumes in always-open mode', async () => {
    const s = setup('always-open', '2026-03-07T23:30:00Z');
    await s.scheduler.start();
    expect(s.pair()?.tradingStatus).toBe('CONTINUOUS_TRADING');
    await s.volatility(false);
    expect([s.pair()?.tradingStatus, s.pair()?.tradingHaltCounter]).toEqual(['CONTINUOUS_TRADING', 0]);
    await s.volatility();
    expect(s.scheduler.resumeAt(def.pair.id)).toBe(s.now() + 330_000);
    await s.at('2026-03-07T23:40:00Z');
    expect([s.pair()?.tradingStatus, s.pair()?.tradingHaltCounter]).toEqual(['CONTINUOUS_TRADING', 1]);
  });
});
