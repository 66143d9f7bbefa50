import { describe, expect, it } from 'vitest';
import type { MetricSample } from '../support/e2e/metrics-text.ts';
import { compareGauges, gaugeFingerprint, type ChainState, type TruthSnapshot } from './gauges.ts';
import { appliedHeight } from './sampler.ts';

const EVM = '0xAbC';
const WASM = 'GWALLET';
const TAG = 0xd1;
const ours = (pairId: string, side: 'buy' | 'sell') => ({ pairId, side, crossId: 0xd1000005n });

function state(o: Partial<ChainState>): ChainState {
  return { height: 1, resting: [], inflight: 0, positions: new Map(), ...o };
}

function snapshot(
  evm: [ChainState, ChainState],
  wasm: [ChainState, ChainState] = [state({}), state({})],
): TruthSnapshot {
  return {
    wallets: [
      { chain: 'evm', address: EVM },
      { chain: 'wasm', address: WASM },
    ],
    pairs: [{ chain: 'evm', pairId: 'a' }],
    states: { evm, wasm },
    crossIdTag: TAG,
  };
}

const m = (name: string, labels: Record<string, string>, value: number): MetricSample => ({ name, labels, value });
const walletGauges = (live: number, unknown = 0, foreign = 0): MetricSample[] =>
  [
    ['evm', EVM.toLowerCase()],
    ['wasm', WASM],
  ].flatMap(([chain, wallet]) => [
    m('dltmm_orders_live', { chain: chain as string, wallet: wallet as string }, chain === 'evm' ? live : 0),
    m(
      'dltmm_orders_unknown_outcome',
      { chain: chain as string, wallet: wallet as string },
      chain === 'evm' ? unknown : 0,
    ),
    m('dltmm_foreign_orders', { chain: chain as string, wallet: wallet as string }, chain === 'evm' ? foreign : 0),
  ]);
const pairGauges = (position: number, buy: number, sell: number): MetricSample[] => [
  m('dltmm_position_base', { pair: 'a' }, position),
  m('dltmm_quote_presence', { pair: 'a', side: 'buy' }, buy),
  m('dltmm_quote_presence', { pair: 'a', side: 'sell' }, sell),
];
const failing = (checks: ReturnType<typeof compareGauges>) =>
  checks.filter((c) => !c.equal).map((c) => `${c.gauge} ${c.subject}: ${c.value} vs ${c.truth}`);

describe('compareGauges', () => {
  const newest = state({
    height: 9,
    resting: [ours('a', 'buy'), ours('a', 'sell')],
    inflight: 1,
    positions: new Map([['a', '0.3']]),
  });
  const before = state({ height: 8, resting: [ours('a', 'buy')], inflight: 1, positions: new Map([['a', '0.1']]) });

  it('accepts gauges between the truth after the block before the newest and after the newest, in-flight placements counted as live', () => {
    expect(
      failing(compareGauges(1, [...walletGauges(3, 1), ...pairGauges(0.3, 1, 1)], snapshot([before, newest]))),
    ).toEqual([]);
    expect(
      failing(compareGauges(1, [...walletGauges(2, 0), ...pairGauges(0.1, 1, 0)], snapshot([before, newest]))),
    ).toEqual([]);
  });

  it('flags a gauge outside both truths, and one the bot does not export', () => {
    const checks = compareGauges(
      2,
      [...walletGauges(0, 2, 1), ...pairGauges(0.5, 0, 1)].filter(
        (s) => s.name !== 'dltmm_quote_presence' || s.labels.side !== 'sell',
      ),
      snapshot([before, newest]),
    );
    expect(failing(checks)).toEqual([
      'dltmm_orders_live 0xAbC: 0 vs 2..3',
      'dltmm_orders_unknown_outcome 0xAbC: 2 vs 0..1',
      'dltmm_foreign_orders 0xAbC: 1 vs 0',
      'dltmm_position_base a: 0.5 vs 0.1..0.3',
      'dltmm_quote_presence a buy: 0 vs 1',
      'dltmm_quote_presence a sell: not exported vs 0..1',
    ]);
    expect(checks.every((c) => c.sample === 2)).toBe(true);
  });

  it('compares with the double nearest to the exact truth: a position summed in floating point is off', () => {
    const exact = state({ positions: new Map([['a', '0.3']]) });
    expect(
      failing(compareGauges(1, [...walletGauges(0), ...pairGauges(0.1 + 0.2, 0, 0)], snapshot([exact, exact]))),
    ).toEqual(['dltmm_position_base a: 0.30000000000000004 vs 0.3']);
  });

  it('counts resting orders of our wallets without the bot tag as foreign', () => {
    const foreign = state({ resting: [ours('a', 'buy'), { pairId: 'a', side: 'buy', crossId: 0x01000001n }] });
    expect(
      failing(compareGauges(1, [...walletGauges(2, 0, 1), ...pairGauges(0, 1, 0)], snapshot([foreign, foreign]))),
    ).toEqual([]);
  });
});

const coveredAt = (height: number) => [
  ...walletGauges(1),
  m('dltmm_events_covered', { chain: 'evm', wallet: EVM }, height),
];

describe('gaugeFingerprint', () => {
  it('changes with any compared gauge and ignores the others', () => {
    const a = [...walletGauges(1), m('dltmm_quote_spread_bps', { pair: 'a' }, 5)];
    expect(gaugeFingerprint(a)).toBe(
      gaugeFingerprint([...walletGauges(1), m('dltmm_quote_spread_bps', { pair: 'a' }, 7)]),
    );
    expect(gaugeFingerprint(a)).not.toBe(gaugeFingerprint(walletGauges(2)));
  });

  it('changes when the bot applies another block, the state gauges alike', () => {
    expect(gaugeFingerprint(coveredAt(283))).not.toBe(gaugeFingerprint(coveredAt(284)));
    expect(appliedHeight(coveredAt(283), 'evm')).toBe(283);
    expect(appliedHeight(coveredAt(283), 'wasm')).toBe(-1);
  });
});
