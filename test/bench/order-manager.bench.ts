/**
 * The order engine's own costs: maker-fill attribution with and without the incoming order's trade event
 * (the blind case searches every split and price the amounts allow), and the durable writes every order
 * pays before it is signed and on every transition (one SQLite file, WAL, synchronous=NORMAL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newOrder } from '../../src/core/order-state.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import { isOnTick } from '../../src/core/ticks.ts';
import { priceFromRaw } from '../../src/core/units.ts';
import { attributeMakerFills, type MakerInput } from '../../src/engine/wallet/fills/maker-fills.ts';
import { transaction } from '../../src/store/database.ts';
import { openStore } from '../../src/store/store.ts';
import { MM, OTHER, runMakerScenario } from '../support/engine/maker-scenario.ts';
import { pairWith } from '../support/pairs.ts';
import { compare, fmt, type Row } from './harness.ts';

export const title = 'order engine';

function attribution(): Row[] {
  const pair = pairWith('evm-pair');
  const rules = derivePairRules(pair);
  const s = runMakerScenario(
    pair,
    true,
    [
      { wallet: MM, side: 'sell', quantity: 10_000n, price: 1_001_000n },
      { wallet: OTHER, side: 'sell', quantity: 15_000n, price: 1_001_000n },
      { wallet: MM, side: 'sell', quantity: 20_000n, price: 1_001_000n },
      { wallet: MM, side: 'sell', quantity: 10_000n, price: 1_002_000n },
    ],
    { side: 'buy', quantity: 40_000n, price: 1_003_000n },
  );
  const input: MakerInput = {
    side: 'sell',
    candidates: s.candidates,
    scales: rules.scales,
    prefunded: true,
    baseIn: s.flows.baseIn,
    quoteIn: s.flows.quoteIn,
    tradePrice: s.trade?.price ?? null,
    sizeStep: 5_000n,
    onTick: (p) => isOnTick(priceFromRaw(p, rules.scales), rules.tick),
    priceBounds: { lo: 900_000n, hi: 1_100_000n },
  };
  const [seen, blind] = compare([
    { name: 'with trade event', fn: () => attributeMakerFills(input) },
    { name: 'blind', fn: () => attributeMakerFills({ ...input, tradePrice: null }) },
  ]) as [ReturnType<typeof compare>[0], ReturnType<typeof compare>[0]];
  return [
    {
      benchmark: title,
      measure: 'maker attribution, 3 own sells crossed, with the trade event, ops/s',
      value: fmt(seen.opsPerSecond),
    },
    {
      benchmark: title,
      measure: 'maker attribution, same, without the trade event (every split and price searched), ops/s',
      value: fmt(blind.opsPerSecond),
      baseline: fmt(seen.opsPerSecond),
      ratio: `${fmt(blind.opsPerSecond / seen.opsPerSecond, 3)}x`,
    },
  ];
}

function durableWrites(): Row[] {
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-bench-'));
  const store = openStore(join(dir, 'state.sqlite'));
  const n = 2_000;
  try {
    let t0 = performance.now();
    const ids: bigint[] = [];
    for (let i = 0; i < n; i++) {
      transaction(store.db, () => {
        const cid = BigInt(store.state.nextCounter('bench', 1, 1 << 24));
        const decisionId = store.state.recordDecision({
          pairId: 'p',
          strategy: 'ladder',
          configHash: 'h',
          params: { i },
          market: { mid: '100' },
          risk: ['ok'],
        });
        store.orders.create(
          newOrder({ clientOrderId: cid, pairId: 'p', side: 'buy', quantity: 10_000n, price: 1_000_000n }),
          { wallet: 'w', chain: 'evm', decisionId },
        );
        ids.push(cid);
      });
    }
    const recordMs = performance.now() - t0;
    t0 = performance.now();
    for (const [i, cid] of ids.entries()) {
      store.orders.apply('w', cid, { type: 'SubmissionSent', txHash: `0x${i}` });
      store.orders.apply('w', cid, { type: 'Accepted', orderId: BigInt(i + 1) });
      store.orders.apply('w', cid, { type: 'Rested', quantity: 10_000n });
    }
    const applyMs = performance.now() - t0;
    return [
      {
        benchmark: title,
        measure: 'orders recorded before signing (id, decision, order; one commit each), per second',
        value: fmt((n * 1000) / recordMs),
      },
      {
        benchmark: title,
        measure: 'order transitions persisted (table check, row, transition record; one commit each), per second',
        value: fmt((3 * n * 1000) / applyMs),
      },
    ];
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function run(): Row[] {
  return [...attribution(), ...durableWrites()];
}
