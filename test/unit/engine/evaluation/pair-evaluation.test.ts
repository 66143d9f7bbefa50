import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { newOrder } from '../../../../src/core/order-state.ts';
import type { PairScales } from '../../../../src/core/units.ts';
import { deriveEvaluationGauges } from '../../../../src/engine/evaluation/metrics.ts';
import { PairEvaluation } from '../../../../src/engine/evaluation/pair-evaluation.ts';
import { createMetrics } from '../../../../src/telemetry/metrics.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import { openStore, type Store } from '../../../../src/store/store.ts';

const d = (v: string | number) => new Decimal(v);
const WALLET = '0xmaker';
const PAIR = 'p1';
// Quantities with 2 decimals, prices with 4; base and quote tokens with 6 decimals.
const SCALES: PairScales = {
  baseInternal: 100n,
  quoteInternal: 10_000n,
  baseNative: 1_000_000n,
  quoteNative: 1_000_000n,
};
const HORIZONS = [1_000, 10_000];

let dir: string;
let store: Store;
let now = 0;
let cid = 0n;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-evaluation-'));
  store = openStore(join(dir, 'state.sqlite'), () => now);
  now = 1_000_000;
  cid = 0n;
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const evaluation = (chainFeeRate = { evm: d(0), wasm: d(0) }) =>
  new PairEvaluation({
    pairId: PAIR,
    wallet: WALLET,
    scales: SCALES,
    store: store.evaluation,
    horizonsMs: HORIZONS,
    chainFeeRate,
    clock: { now: () => now },
  });

/** A quote of ours at `level` filled in full: quantity and price human; commission in quote units. */
function fill(side: 'buy' | 'sell', quantity: string, price: string, level: number, commission = '0'): void {
  cid += 1n;
  const q = BigInt(d(quantity).mul(100).toFixed(0));
  const p = BigInt(d(price).mul(10_000).toFixed(0));
  store.orders.create(newOrder({ clientOrderId: cid, pairId: PAIR, side, quantity: q, price: p }), {
    wallet: WALLET,
    chain: 'evm',
    level,
  });
  for (const e of [
    { type: 'SubmissionSent', txHash: `0x${cid}` },
    { type: 'Accepted', orderId: 100n + cid },
    { type: 'Rested', quantity: q },
  ] as const)
    expect(store.orders.apply(WALLET, cid, e).ok).toBe(true);
  const cash = BigInt(d(quantity).mul(d(price)).mul(1_000_000).toFixed(0));
  const fee = BigInt(d(commission).mul(1_000_000).toFixed(0));
  const base = BigInt(d(quantity).mul(1_000_000).toFixed(0));
  const result = store.orders.apply(
    WALLET,
    cid,
    { type: 'Filled', fillId: `f${cid}`, quantity: q, price: p, role: 'maker' },
    {
      fillId: `f${cid}`,
      wallet: WALLET,
      clientOrderId: cid,
      pairId: PAIR,
      side,
      role: 'maker',
      quantity: q,
      price: p,
      baseDelta: side === 'buy' ? base : -base,
      quoteDelta: (side === 'buy' ? -cash : cash) - fee,
      fee,
      txHash: `0xt${cid}`,
      height: 1n,
      atMs: now,
    },
  );
  expect(result.ok).toBe(true);
}

describe('a pair evaluation', () => {
  it('values each fill at the mark then and at each horizon, by side and level, and records the marks', () => {
    const e = evaluation();
    e.observe(d(100));
    fill('buy', '2', '99.5', 0);
    now += 100;
    e.observe(d(100));
    fill('sell', '1', '100.8', 1);
    now += 100;
    e.observe(d('100.2'));
    // 1 s after the buy (seen at +100): the value then was 100.2.
    now += 1_000;
    e.observe(d('100.4'));
    const one = e.markouts(1_000)!;
    expect({
      buy: one.bySide.buy.quote.toFixed(),
      sell: one.bySide.sell.quote.toFixed(),
      level0: one.byLevel.get(0)?.bps?.toFixed(),
      level1: one.byLevel.get(1)?.quote.toFixed(),
      fills: one.all.fills,
    }).toEqual({
      // bought 2 at 99.5, 1 s later 100.2
      buy: '1.4',
      // sold 1 at 100.8, 1 s later (seen at +200) 100.4
      sell: '0.4',
      level0: d('1.4').div(d(199)).mul(10_000).toFixed(),
      level1: '0.4',
      fills: 2,
    });
    expect(e.markouts(10_000)!.all.fills).toBe(0);
    expect(e.pending).toBe(2);
    now += 10_000;
    e.observe(d(101));
    // 10 s after each: 100.4 for both, (100.4 - 99.5) × 2 + (100.8 - 100.4)
    expect(e.markouts(10_000)!.all.quote.toFixed()).toBe('2.2');
    expect(e.pending).toBe(0);
    const marks = store.evaluation.marks(PAIR).map((m) => [m.fillId, m.horizonMs, m.value]);
    expect(marks).toEqual([
      ['f1', 0, '100'],
      // seen at +200, where the mark is 100.2
      ['f2', 0, '100.2'],
      ['f1', 1_000, '100.2'],
      ['f2', 1_000, '100.4'],
      ['f1', 10_000, '100.4'],
      ['f2', 10_000, '100.4'],
    ]);
  });

  it('attributes PnL to the marks with chain fees at the configured rate; the identity holds', () => {
    const e = evaluation({ evm: d(2_000), wasm: d(0) });
    fill('buy', '2', '99.5', 0, '0.02');
    e.observe(d(100));
    store.transactions.recordSigned({
      txHash: '0xfee',
      chain: 'evm',
      wallet: WALLET,
      source: WALLET,
      sequence: 1n,
      kind: 'place',
      clientOrderId: cid,
      raw: '0x',
    });
    store.transactions.mark('0xfee', 'included', null, 10n ** 14n); // 0.0001 ETH
    now += 500;
    e.observe(d(101));
    e.observe(d(101)); // the same fee is counted once
    const a = e.attribution();
    expect({
      spread: a.spreadCapture.toFixed(),
      inventory: a.inventory.toFixed(),
      commissions: a.commissions.toFixed(),
      chainFees: a.chainFees.toFixed(),
      total: a.total.toFixed(),
    }).toEqual({ spread: '1', inventory: '2', commissions: '0.02', chainFees: '0.2', total: '2.78' });
    expect(a.spreadCapture.add(a.inventory).sub(a.commissions).sub(a.chainFees).eq(a.total)).toBe(true);
  });

  it('after a restart: recorded marks count again, open horizons go on, fills recorded while stopped get no markouts', () => {
    const first = evaluation();
    first.observe(d(100));
    fill('buy', '1', '99', 0);
    now += 100;
    first.observe(d(100)); // the buy seen at +100, valued 100
    now += 1_000;
    first.observe(d(100)); // its 1 s markout: 1
    fill('sell', '1', '101', 0); // recorded, but the bot stops before it looks again
    now += 5_000;
    const again = evaluation();
    again.observe(d(102));
    now += 5_000;
    again.observe(d(103)); // the buy's 10 s horizon (+10100) falls due: 102
    expect({
      one: again.markouts(1_000)!.all.quote.toFixed(),
      ten: again.markouts(10_000)!.all.quote.toFixed(),
      fills: again.markouts(10_000)!.all.fills,
      // the sell's two horizons
      missed: again.missed,
      // the buy at its recorded 100, the sell at the first value seen after the start, 102
      spread: again.attribution().spreadCapture.toFixed(),
    }).toEqual({ one: '1', ten: '3', fills: 1, missed: 2, spread: '0' });
  });

  it('starts over when a reorganisation withdraws a fill: the withdrawn one leaves the figures, the next one counts though it takes its row id', () => {
    const e = evaluation();
    e.observe(d(100));
    fill('buy', '1', '99', 0);
    fill('buy', '2', '99.5', 0);
    now += 100;
    e.observe(d(100));
    expect(e.attribution().position.toFixed()).toBe('3');
    store.orders.deleteFill('f2');
    fill('sell', '1', '100.5', 1);
    now += 100;
    e.observe(d(100));
    const a = e.attribution();
    expect({ position: a.position.toFixed(), spread: a.spreadCapture.toFixed() }).toEqual({
      position: '0',
      // bought 1 at 99 and sold 1 at 100.5, both against 100
      spread: '1.5',
    });
  });

  it('holds fills until there is a value to mark them at', () => {
    const e = evaluation();
    fill('buy', '1', '99', 0);
    e.observe(null);
    expect(e.attribution().position.toFixed()).toBe('0');
    now += 100;
    e.observe(d(100));
    expect(e.attribution().position.toFixed()).toBe('1');
    expect(store.evaluation.marks(PAIR)).toHaveLength(1);
  });
});

describe('markouts and attribution on /metrics', () => {
  it('publishes the parts of the PnL so that total = spread capture + inventory - commissions - chain fees, and the markouts by side and level', async () => {
    const metrics = createMetrics();
    const e = evaluation({ evm: d(2_000), wasm: d(0) });
    deriveEvaluationGauges(metrics, () => [[PAIR, e]]);
    fill('buy', '2', '99.5', 0, '0.02');
    e.observe(d('100.013'));
    fill('sell', '0.5', '100.4', 1, '0.01');
    now += 1_000;
    e.observe(d('100.2'));
    now += 1_000;
    e.observe(d('100.2'));
    const part = (p: string) => metricValue(metrics, 'dltmm_pnl_attribution', { pair: PAIR, part: p });
    const [total, spread, inventory, commissions, chainFees] = (await Promise.all(
      ['total', 'spread_capture', 'inventory', 'commissions', 'chain_fees'].map(part),
    )) as [number, number, number, number, number];
    const a = e.attribution();
    expect(total).toBe(a.total.toNumber());
    // The parts as published add up to the total to the quote token's last unit (6 decimals here).
    expect(Math.abs(spread + inventory - commissions - chainFees - total)).toBeLessThan(0.5e-6);
    expect(await metricValue(metrics, 'dltmm_markout_fills', { pair: PAIR, side: 'all', horizon: '1s' })).toBe(2);
    expect(await metricValue(metrics, 'dltmm_markout_bps', { pair: PAIR, side: 'buy', horizon: '1s' })).toBeCloseTo(
      ((100.2 - 99.5) / 99.5) * 10_000,
      9,
    );
    expect(
      await metricValue(metrics, 'dltmm_markout_level_bps', { pair: PAIR, level: '1', horizon: '1s' }),
    ).toBeCloseTo(((100.4 - 100.2) / 100.4) * 10_000, 9);
  });
});
