/**
 * The sandbox venue: time from `startSandbox` to ready (warm compile cache, default pairs, the simulated
 * market seeding its first quotes), REST requests answered per second (sequential, one keep-alive client,
 * books of a running market), and order book events applied per second by the venue's view (a replay of
 * the matching engine's own events), beside the matching engine producing them.
 */
import { createBook, submitOrder } from '../../src/sandbox/matching/engine.ts';
import type { BookContext, BookEvent, BookParams } from '../../src/sandbox/matching/types.ts';
import { PairMarket } from '../../src/sandbox/api/market.ts';
import { SeededRandom } from '../../src/sandbox/flow/random.ts';
import { startSandbox } from '../../src/sandbox/venue/start.ts';
import { openBookParams } from '../support/matching/book-params.ts';
import { MemoryLedger } from '../support/matching/memory-ledger.ts';
import { compare, fmt, type Row } from './harness.ts';

export const title = 'sandbox venue';

const PARAMS: BookParams = openBookParams({ maximumMatches: 10 });

/** A stream of 2,000 submissions around a fixed price, as the engine answers them. */
function engineEvents(): { submit: () => BookEvent[]; events: BookEvent[] } {
  const ledger = new MemoryLedger();
  for (const w of ['a', 'b', 'c']) {
    ledger.mint('base', w, 10n ** 15n);
    ledger.mint('quote', w, 10n ** 18n);
    ledger.approve('base', w, 'orderBook', 10n ** 15n);
    ledger.approve('quote', w, 'orderBook', 10n ** 18n);
  }
  const ctx: BookContext = {
    ledger,
    nowSeconds: 0n,
    client: () => ({ canBuy: true, canSell: true, canCancel: true, isMarketMaker: false }),
  };
  // Buys and sells around one price cross about as often as they rest, so the book stays small.
  const book = createBook(PARAMS);
  const random = new SeededRandom(5);
  const submit = () => {
    const side = random.next() < 0.5 ? 'buy' : 'sell';
    return submitOrder(book, ctx, ['a', 'b', 'c'][random.int(0, 2)] as string, side, () => ({
      quantity: BigInt(random.int(1, 50)),
      price: BigInt(9_950 + random.int(0, 100)),
      crossId: BigInt(random.int(0, 1_000_000)),
      type: 'limit',
      condition: 'standard',
      validity: 'gfd',
      lifetimeDays: 0,
      reportingData: new Uint8Array([0]),
    })).events;
  };
  const events = Array.from({ length: 2_000 }, submit).flat();
  return { submit, events };
}

async function restRate(url: string, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await (await fetch(url)).text();
  return (n * 1000) / (performance.now() - t0);
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const t0 = performance.now();
  const sb = await startSandbox({
    ports: { api: 0, evm: 0, wasm: 0 },
    manifest: false,
    evm: { blockTimeMs: 500 },
    wasm: { ledgerIntervalMs: 500 },
  });
  rows.push({
    benchmark: title,
    measure: 'startSandbox to ready (warm cache), ms',
    value: fmt(performance.now() - t0),
  });
  try {
    const base = sb.manifest.venue.restUrl;
    await new Promise((r) => setTimeout(r, 2_000));
    rows.push({
      benchmark: title,
      measure: 'REST GET pricelevels, requests/s',
      value: fmt(await restRate(`${base}/tradingpairs/tp-evm-bond26-eure/pricelevels`, 500)),
    });
    rows.push({
      benchmark: title,
      measure: 'REST GET tradingpairs (4 pairs), requests/s',
      value: fmt(await restRate(`${base}/tradingpairs`, 500)),
    });
  } finally {
    await sb.stop();
  }
  const { submit, events } = engineEvents();
  let market = new PairMarket('p');
  let at = 0;
  const [applied, engine] = compare([
    {
      name: 'view applies one engine event',
      fn: () => {
        if (at === events.length) {
          at = 0;
          market = new PairMarket('p');
        }
        market.apply(events[at++] as BookEvent, 0);
        return market;
      },
    },
    { name: 'engine answers one submission', fn: submit },
  ]);
  rows.push({
    benchmark: title,
    measure: 'venue view: book events applied/s',
    value: fmt(applied?.opsPerSecond ?? 0),
    baseline: `engine ${fmt(engine?.opsPerSecond ?? 0)} submissions/s`,
  });
  return rows;
}
