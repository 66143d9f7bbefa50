/**
 * Market-data frames decoded and applied per second. Frames follow a seeded random walk of the fair price
 * on a 0.05 tick (levels move, appear and vanish as on a live book) and are replayed in turn, so the
 * decoder meets new and repeated numbers as it would in production. Compared side by side: our decoder
 * (JSON.parse, hand-written checks, a Decimal per price and quantity, book replaced in the store), plain
 * JSON.parse alone (the floor: no checks, floats), the same checks by a zod schema, frames whose every
 * number is new (the Decimal cache defeated: the worst case), and frames with an 18-digit price (the
 * source-text path of parseVenueJson).
 */
import { z } from 'zod';
import { BookStore } from '../../src/venue/market-data/book.ts';
import { decodeMarketDataMessage } from '../../src/venue/market-data/decode.ts';
import { toDecimal } from '../../src/venue/payload/decimal-value.ts';
import { compare, fmt, type Row } from './harness.ts';

export const title = 'market data';

const LEVELS = 10;
const FRAMES = 2_000;

/** Deterministic uniform [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Style = 'walk' | 'all-new' | 'precise';

function frames(style: Style): string[] {
  const random = seeded(42);
  let mid = 2_000; // in ticks of 0.05
  return Array.from({ length: FRAMES }, (_, f) => {
    mid += Math.floor(random() * 3) - 1;
    const level = (tick: number, i: number) => {
      const limit = style === 'all-new' ? (tick * 0.05 + f * 1e-6 + i * 1e-7).toFixed(7) : (tick * 0.05).toFixed(2);
      const precise = style === 'precise' && i === 0 ? `${limit}000000000000001` : limit;
      const qty =
        style === 'all-new' ? (1 + random() * 50).toFixed(6) : (0.5 * (1 + Math.floor(random() * 100))).toFixed(1);
      return `{"limit":${precise},"totalQuantity":${qty},"orderCount":${1 + Math.floor(random() * 10)}}`;
    };
    const buy = Array.from({ length: LEVELS }, (_, i) => level(mid - 1 - i, i)).join(',');
    const sell = Array.from({ length: LEVELS }, (_, i) => level(mid + 1 + i, i)).join(',');
    return `{"channel":"orderbook","data":[{"symbol":"BOND26EURe","buy":[${buy}],"sell":[${sell}],"time":"2026-03-02T09:00:00.123Z"}]}`;
  });
}

const zodAmount = z
  .unknown()
  .transform((v, ctx) => toDecimal(v) ?? (ctx.addIssue({ code: 'custom', message: 'not a number' }), z.NEVER));
const zodLevel = z
  .object({ limit: zodAmount, totalQuantity: zodAmount, orderCount: z.number().int().nonnegative() })
  .transform((l) => ({ limit: l.limit, quantity: l.totalQuantity, orderCount: l.orderCount }));
const zodFrame = z.object({
  channel: z.string(),
  data: z.array(
    z.object({ symbol: z.string().min(1), buy: z.array(zodLevel), sell: z.array(zodLevel), time: z.iso.datetime() }),
  ),
});

function cycle(list: readonly string[]): () => string {
  let i = 0;
  return () => list[i++ % list.length] as string;
}

export function run(): Row[] {
  const walk = frames('walk');
  const store = new BookStore();
  let now = 0;
  const decodeAndApply = (text: string) => {
    const m = decodeMarketDataMessage(text);
    if (m.type !== 'data') throw new Error('not a data frame');
    now += 1;
    for (const u of m.markets)
      store.apply({ symbol: u.symbol, buy: u.buy, sell: u.sell, time: u.time, receivedAt: now, source: 'ws' });
    return store;
  };
  const nextWalk = [cycle(walk), cycle(walk), cycle(walk)] as const;
  const nextNew = cycle(frames('all-new'));
  const nextPrecise = cycle(frames('precise'));
  const results = compare([
    { name: 'decode + apply', fn: () => decodeAndApply(nextWalk[0]()) },
    { name: 'JSON.parse only', fn: () => JSON.parse(nextWalk[1]()) as unknown },
    {
      name: 'zod + apply',
      fn: () => {
        const m = zodFrame.parse(JSON.parse(nextWalk[2]()));
        for (const u of m.data)
          store.apply({ symbol: u.symbol, buy: u.buy, sell: u.sell, time: u.time, receivedAt: 0, source: 'ws' });
        return store;
      },
    },
    { name: 'decode + apply, every number new', fn: () => decodeAndApply(nextNew()) },
    { name: 'decode + apply, 18-digit price', fn: () => decodeAndApply(nextPrecise()) },
  ]);
  const [ours, parseOnly, zod, allNew, precise] = results.map((r) => r.opsPerSecond) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const what = `1 market x ${LEVELS}+${LEVELS} levels, ~${walk[0]?.length ?? 0} B, ${FRAMES} random-walk frames`;
  return [
    {
      benchmark: title,
      measure: `frames decoded + applied /s (${what}; goal > 20,000)`,
      value: fmt(ours),
      baseline: `${fmt(parseOnly)} (JSON.parse only)`,
      ratio: `${fmt(ours / parseOnly, 2)}x`,
    },
    {
      benchmark: title,
      measure: 'same frames, checked by a zod schema instead',
      value: fmt(zod),
      baseline: `${fmt(ours)} (hand-written)`,
      ratio: `${fmt(zod / ours, 2)}x`,
    },
    {
      benchmark: title,
      measure: 'frames /s, every number new (no Decimal reuse)',
      value: fmt(allNew),
      baseline: `${fmt(ours)} (random walk)`,
      ratio: `${fmt(allNew / ours, 2)}x`,
    },
    {
      benchmark: title,
      measure: 'frames /s with an 18-digit price (source-text path)',
      value: fmt(precise),
      baseline: `${fmt(ours)} (random walk)`,
      ratio: `${fmt(precise / ours, 2)}x`,
    },
  ];
}
