import { describe, expect, it } from 'vitest';
import { fitLatency } from '../../../src/backtest/latency.ts';
import type { RecordedActionRow } from '../../../src/store/recording-read.ts';

const row = (recvMs: number, stage: string, type: string, txHash: string, pairId = 'p'): RecordedActionRow => ({
  recvMs,
  pairId,
  stage,
  type,
  txHash,
});

describe('the latency model fitted to a recording', () => {
  it('counts a cancellation, whose outcome is not recorded, in flight for the median delay only', () => {
    const actions: RecordedActionRow[] = [];
    // Every 5 s a placement (decided 2 s after sending) and a cancellation (no outcome recorded), 100 times.
    for (let i = 0; i < 100; i++) {
      const t = i * 5_000;
      actions.push(row(t, 'sent', 'place', `p${i}`), row(t + 2_000, 'included', 'place', `p${i}`));
      actions.push(row(t + 100, 'sent', 'cancel', `c${i}`));
    }
    // Another chain's transaction is not this chain's.
    actions.push(row(0, 'sent', 'place', 'x', 'other'));
    const fitted = fitLatency(actions, new Set(['p']));
    expect(fitted.samples).toHaveLength(100);
    expect(fitted.samples.every((s) => s === 2_000)).toBe(true);
    // A placement and a cancellation at once, never more: the cancellations do not pile up as if never decided.
    expect(fitted.maxInFlight).toBe(2);
  });

  it('leaves the wallet unbounded when the recording has none of its transactions', () => {
    expect(fitLatency([row(0, 'decided', 'place', 'h')], new Set(['q'])).maxInFlight).toBe(Number.POSITIVE_INFINITY);
  });
});
