import { describe, expect, it } from 'vitest';
import { trackerObligations } from '../../../../src/cli/board/obligations.ts';
import type { ObligationSnapshot } from '../../../../src/engine/obligations/tracker.ts';

const base: ObligationSnapshot = {
  pairId: 'tp-wasm-fund',
  symbol: 'FUND1EURe',
  day: '2026-03-02',
  atMs: 0,
  target: 0.8,
  presence: 0.75,
  presentMs: 750,
  continuousMs: 1000,
  compliantNow: false,
  shortfall: null,
  market: 'continuous',
  stressed: false,
  spreadBps: 61.234,
  maxSpreadBps: 50,
  bidSize: '1',
  askSize: '1',
  minSize: '1',
  sizeUnit: 'base',
  absenceLeftMs: 0,
  targetReachable: true,
  guard: true,
  breach: null,
};

const provider = (s: ObligationSnapshot | null) =>
  trackerObligations({ snapshot: (id) => (s !== null && id === s.pairId ? s : null) });

describe("the board's obligation columns read the tracker", () => {
  it('a pair without obligations has no figures', () => {
    expect(provider(base).status('tp-evm-bond', 0)).toBeNull();
  });

  it('presence, target and spreads in basis points; compliance while the book trades continuously', () => {
    const s = provider(base).status('tp-wasm-fund', 0);
    expect(s).toMatchObject({ presence: 0.75, presenceTarget: 0.8, spreadUnit: 'bps', compliant: false });
    expect(s?.spread?.toFixed()).toBe('61.23');
    expect(s?.maxSpread?.toFixed()).toBe('50');
  });

  it('no compliance verdict while the book is halted or closed, and no maximum when the tracker has none', () => {
    const s = provider({ ...base, market: 'halted', compliantNow: true, maxSpreadBps: null, spreadBps: null }).status(
      'tp-wasm-fund',
      0,
    );
    expect(s).toMatchObject({ compliant: null, spread: null, maxSpread: null });
  });
});
