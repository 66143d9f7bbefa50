/**
 * What a market update costs the bot after a long day: the strategy loop of one pair (its order engine on the
 * fake chain, a real SQLite state file, PnL, markouts) answering the same seeded walk of the book on a fresh
 * state file and on one holding 10,000 earlier fills of the pair (their orders and transitions too), the two
 * taking turns round by round so that the machine's load falls on both alike. Each round: a book message,
 * the recomputation, the orders it sends, a block. Measured: process CPU per round (after a warm-up in which
 * the loaded one reads its history once).
 */
import { Decimal } from '../../src/core/decimal.ts';
import { newOrder } from '../../src/core/order-state.ts';
import { baseToNative, priceToRaw, quantityToRaw, quoteToNative } from '../../src/core/units.ts';
import { seeded } from '../support/engine/random.ts';
import { WALLET, type Harness } from '../support/engine/harness.ts';
import { buildPairLoop, type Setup } from '../support/engine/pair-loop-build.ts';
import { fmt, type Row } from './harness.ts';

export const title = 'steady cost';

const HISTORY = 10_000;
const WARMUP = 20;
const ROUNDS = 200;
const SEED = 11;
/** Client order ids of the history, apart from those the engine hands out (another tag in the high byte). */
const HISTORY_TAG = 0xd2n << 24n;

/** Filled orders of ours on the pair, alternately bought and sold (the position stays flat), one fill each. */
function addHistory(h: Harness): void {
  const { store, pair } = h;
  const scales = pair.rules.scales;
  const one = new Decimal(1);
  const price = new Decimal(100);
  const quantity = quantityToRaw(one, scales);
  const raw = priceToRaw(price, scales);
  store.atomically(() => {
    for (let i = 0; i < HISTORY; i++) {
      const side = i % 2 === 0 ? ('buy' as const) : ('sell' as const);
      const cid = HISTORY_TAG | BigInt(i + 1);
      const txHash = `0xhistory${i}`;
      store.orders.create(newOrder({ clientOrderId: cid, pairId: pair.pairId, side, quantity, price: raw }), {
        wallet: WALLET,
        chain: pair.chain,
      });
      for (const e of [
        { type: 'SubmissionSent', txHash },
        { type: 'Accepted', orderId: 1_000_000n + BigInt(i) },
        { type: 'Rested', quantity },
      ] as const)
        store.orders.apply(WALLET, cid, e);
      const sign = side === 'buy' ? 1n : -1n;
      const fillId = `${txHash}:1`;
      store.orders.apply(
        WALLET,
        cid,
        { type: 'Filled', fillId, quantity, price: raw, role: 'maker' },
        {
          fillId,
          wallet: WALLET,
          clientOrderId: cid,
          pairId: pair.pairId,
          side,
          role: 'maker',
          quantity,
          price: raw,
          baseDelta: sign * baseToNative(one, scales),
          quoteDelta: -sign * quoteToNative(price, scales),
          fee: 0n,
          txHash,
          height: BigInt(i),
          atMs: h.clock.now() - (HISTORY - i) * 1_000,
        },
      );
    }
  });
}

async function round(s: Setup, mid: Decimal): Promise<number> {
  const t0 = process.cpuUsage();
  s.h.clock.advance(1_000);
  s.book = {
    symbol: s.h.pair.symbol,
    buy: [{ limit: mid.mul('0.998'), quantity: new Decimal(5) }],
    sell: [{ limit: mid.mul('1.002'), quantity: new Decimal(5) }],
    receivedAt: s.h.clock.now(),
    source: 'ws',
  };
  await s.round();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
}

export async function run(): Promise<Row[]> {
  const fresh = await buildPairLoop({ markoutHorizonsMs: [1_000, 60_000] });
  const loaded = await buildPairLoop({ markoutHorizonsMs: [1_000, 60_000], before: addHistory });
  const random = seeded(SEED);
  let mid = new Decimal(100);
  const cpu = { fresh: 0, loaded: 0 };
  let fills = 0;
  try {
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      // A step of the mid of about one tick, either way.
      mid = mid.add(new Decimal(Math.round((random() - 0.5) * 4)).mul('0.01'));
      const a = await round(fresh, mid);
      const b = await round(loaded, mid);
      if (i >= WARMUP) {
        cpu.fresh += a;
        cpu.loaded += b;
      }
    }
    fills = loaded.h.store.orders.fills({ pairId: loaded.h.pair.pairId }).length;
  } finally {
    for (const s of [fresh, loaded]) {
      await s.h.engine.stop();
      s.h.store.close();
    }
  }
  return [
    {
      benchmark: `market update, ${ROUNDS} rounds`,
      measure: `CPU per round, ms: after ${fmt(fills)} fills (vs a fresh state file)`,
      value: fmt(cpu.loaded / ROUNDS, 2),
      baseline: fmt(cpu.fresh / ROUNDS, 2),
      ratio: `${fmt(cpu.loaded / cpu.fresh, 2)}x`,
    },
  ];
}
