/**
 * Attribution of maker fills. A trade event describes the incoming order only; our resting orders learn of
 * their fills from the token transfers between the order book and our wallet in the same transaction. The
 * venue collects crossing resting orders best price first, then oldest, and fills each in full except the
 * last one collected, all at one execution price. So whatever total of ours was filled, it was filled as a
 * prefix of our crossing orders in that priority, with at most the last of them partial: given the total,
 * the split is unique, and the transfer amounts (rules of the settlement) decide the total.
 *
 * Resting buys receive their base (`baseNative(total)` fixes the total) and, pre-funded, a reimbursement of
 * the lock they no longer need; resting sells receive `sum(sv_i - mc_i)` in quote, which fixes the total only
 * together with the execution price: from the trade event when the follower delivered it, otherwise every
 * (total, price) the amounts allow is tried and more than one total is reported as ambiguous, never guessed.
 */
import type { Side } from '../../../core/order-terms.ts';
import type { PairScales } from '../../../core/units.ts';
import { baseInternal, baseNative, ceilValue, commissionOf, floorValue, lockFor } from './amounts.ts';

export interface MakerCandidate {
  readonly clientOrderId: bigint;
  readonly orderId: bigint;
  /** Limit, raw internal quote units. */
  readonly price: bigint;
  readonly remaining: bigint;
  /** Maker rate fixed at placement. */
  readonly lockRateBps: number;
}

export interface MakerInput {
  /** Side of our resting orders that were hit. */
  readonly side: Side;
  readonly candidates: readonly MakerCandidate[];
  readonly scales: PairScales;
  readonly prefunded: boolean;
  /** Net native amounts the book paid the wallet in the transaction (negative: the wallet paid), own cancellation returns removed. */
  readonly baseIn: bigint;
  readonly quoteIn: bigint;
  /** Execution price from the incoming order's trade event, when seen. */
  readonly tradePrice: bigint | null;
  /**
   * The incoming order's id, from its trade event. Order ids follow the order in which the book received
   * orders, so a resting order with a higher id arrived after the incoming order had matched and cannot have
   * been filled by it (our order sent in the same block, say).
   */
  readonly incomingOrderId?: bigint | null;
  /** Every order size is a multiple of this (raw internal): the gcd of minimum size and size increment. */
  readonly sizeStep: bigint;
  /** The venue's tick grid: every execution price is a limit or an earlier execution price, so it is on tick. */
  readonly onTick?: (price: bigint) => boolean;
  /** Execution prices the venue's controls allow (collar and static threshold around the reference price). */
  readonly priceBounds?: { readonly lo: bigint; readonly hi: bigint };
}

export interface MakerFill {
  readonly clientOrderId: bigint;
  readonly orderId: bigint;
  readonly quantity: bigint;
  readonly price: bigint;
  /** Change of the wallet's inventory total (free plus locked), native units. */
  readonly baseDelta: bigint;
  readonly quoteDelta: bigint;
  readonly fee: bigint;
}

export type MakerResult =
  | {
      readonly kind: 'attributed';
      readonly fills: readonly MakerFill[];
      readonly price: bigint;
      readonly priceExact: boolean;
    }
  | { readonly kind: 'ambiguous'; readonly options: ReadonlyArray<{ readonly filled: bigint; readonly price: bigint }> }
  | { readonly kind: 'unexplained'; readonly reason: string };

/** Venue priority: best price first (highest buy, lowest sell), then oldest (lowest order id). */
export function byPriority(side: Side): (a: MakerCandidate, b: MakerCandidate) => number {
  return (a, b) => {
    if (a.price !== b.price) return (side === 'buy' ? a.price > b.price : a.price < b.price) ? -1 : 1;
    return a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0;
  };
}

type Alloc = ReadonlyArray<{ readonly c: MakerCandidate; readonly f: bigint }>;

/** The unique prefix split of `total` over candidates in priority order, or null when it does not fit. */
export function allocate(sorted: readonly MakerCandidate[], total: bigint): Alloc | null {
  const out: Array<{ c: MakerCandidate; f: bigint }> = [];
  let left = total;
  for (const c of sorted) {
    if (left === 0n) break;
    const f = c.remaining < left ? c.remaining : left;
    if (f > 0n) out.push({ c, f });
    left -= f;
  }
  return left === 0n && total > 0n ? out : null;
}

type Variant = 'ceil' | 'floor';

/** Per-fill amounts at execution price `p`; `variant` says whether sellers got the rounded-up value. */
function price(input: MakerInput, alloc: Alloc, p: bigint, variant: Variant): { quoteIn: bigint; fills: MakerFill[] } {
  const s = input.scales;
  let quoteIn = 0n;
  const fills = alloc.map(({ c, f }) => {
    const bv = floorValue(p, f, s);
    const base = baseNative(f, s);
    if (input.side === 'buy') {
      const mc = commissionOf(bv, c.lockRateBps);
      const owed = bv + mc;
      const released = input.prefunded
        ? lockFor(c.price, c.remaining, c.lockRateBps, s) - lockFor(c.price, c.remaining - f, c.lockRateBps, s)
        : owed;
      const paid = owed < released ? owed : released;
      quoteIn += input.prefunded ? released - paid : -paid;
      return {
        clientOrderId: c.clientOrderId,
        orderId: c.orderId,
        quantity: f,
        price: p,
        baseDelta: base,
        quoteDelta: -paid,
        fee: paid - bv,
      };
    }
    const sv = variant === 'ceil' ? ceilValue(p, f, s) : bv;
    const mc = commissionOf(sv, c.lockRateBps);
    if (sv - mc > 0n) quoteIn += sv - mc;
    return {
      clientOrderId: c.clientOrderId,
      orderId: c.orderId,
      quantity: f,
      price: p,
      baseDelta: -base,
      quoteDelta: sv - mc,
      fee: mc,
    };
  });
  return { quoteIn, fills };
}

/** Every p in [lo, hi] with g(p) === target, for g monotone (non-decreasing when `rising`), as a range. */
function solveRange(
  g: (p: bigint) => bigint,
  lo: bigint,
  hi: bigint,
  target: bigint,
  rising: boolean,
): [bigint, bigint] | null {
  if (lo > hi) return null;
  const before = (p: bigint) => (rising ? g(p) < target : g(p) > target);
  const beyond = (p: bigint) => (rising ? g(p) > target : g(p) < target);
  const first = (pred: (p: bigint) => boolean) => {
    let a = lo;
    let b = hi + 1n;
    while (a < b) {
      const m = (a + b) / 2n;
      if (pred(m)) a = m + 1n;
      else b = m;
    }
    return a;
  };
  const from = first(before);
  if (from > hi || g(from) !== target) return null;
  const to = first((p) => !beyond(p)) - 1n;
  return [from, to];
}

const MAX_PRICE = (1n << 64n) - 1n;
const TICK_SCAN = 2_000n;
const MAX_TOTALS = 20_000;

/** The price to record from a range: the venue's tick grid when known, nearest our limits. */
function pick(range: [bigint, bigint], input: MakerInput): bigint {
  const [lo, hi] = range;
  const fromHigh = input.side === 'buy';
  if (input.onTick !== undefined) {
    for (let i = 0n; i <= TICK_SCAN && lo + i <= hi; i++) {
      const p = fromHigh ? hi - i : lo + i;
      if (input.onTick(p)) return p;
    }
  }
  return fromHigh ? hi : lo;
}

function hasTick(range: [bigint, bigint], input: MakerInput): boolean {
  if (input.onTick === undefined || range[1] - range[0] > TICK_SCAN) return true;
  for (let p = range[0]; p <= range[1]; p++) if (input.onTick(p)) return true;
  return false;
}

/** Solves the execution prices for a known total; each variant of seller rounding is tried. */
function solveForTotal(
  input: MakerInput,
  sorted: readonly MakerCandidate[],
  total: bigint,
): Array<{ alloc: Alloc; variant: Variant; range: [bigint, bigint] }> {
  const alloc = allocate(sorted, total);
  if (alloc === null) return [];
  const limits = alloc.map((x) => x.c.price);
  // Every filled order crossed the execution price: buys at or above it, sells at or below it.
  const bounds = input.priceBounds ?? { lo: 1n, hi: MAX_PRICE };
  const lo = input.side === 'buy' ? bounds.lo : limits.reduce((m, x) => (x > m ? x : m), bounds.lo);
  const hi = input.side === 'buy' ? limits.reduce((m, x) => (x < m ? x : m), bounds.hi) : bounds.hi;
  const variants: Variant[] = input.side === 'buy' ? ['floor'] : ['ceil', 'floor'];
  const out: Array<{ alloc: Alloc; variant: Variant; range: [bigint, bigint] }> = [];
  for (const variant of variants) {
    const g = (p: bigint) => price(input, alloc, p, variant).quoteIn;
    if (input.tradePrice !== null) {
      const p = input.tradePrice;
      if (p >= lo && p <= hi && g(p) === input.quoteIn) out.push({ alloc, variant, range: [p, p] });
      continue;
    }
    // What the wallet receives grows with the price for sells and shrinks for buys.
    const range = solveRange(g, lo, hi, input.quoteIn, input.side === 'sell');
    if (range !== null && hasTick(range, input)) out.push({ alloc, variant, range });
  }
  return out;
}

/** Totals worth trying when the base transfers do not fix it: multiples of the size step, and whole prefixes. */
function possibleTotals(sorted: readonly MakerCandidate[], step: bigint): bigint[] {
  const all = sorted.reduce((n, c) => n + c.remaining, 0n);
  const totals = new Set<bigint>();
  let prefix = 0n;
  for (const c of sorted) totals.add((prefix += c.remaining));
  if (step > 0n) for (let t = step; t <= all && totals.size < MAX_TOTALS; t += step) totals.add(t);
  return [...totals].toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function attributeMakerFills(input: MakerInput): MakerResult {
  const incoming = input.incomingOrderId ?? null;
  const sorted = input.candidates
    .filter((c) => c.remaining > 0n && (incoming === null || c.orderId < incoming))
    .toSorted(byPriority(input.side));
  if (sorted.length === 0)
    return { kind: 'unexplained', reason: `no resting ${input.side} order of ours could have been filled` };
  let totals: bigint[];
  if (input.side === 'buy' || !input.prefunded) {
    // The base moved with each fill: it fixes the total.
    const moved = input.side === 'buy' ? input.baseIn : -input.baseIn;
    const total = moved > 0n ? baseInternal(moved, input.scales) : null;
    if (total === null)
      return {
        kind: 'unexplained',
        reason: `base movement ${input.baseIn} is not a fill of resting ${input.side} orders`,
      };
    totals = [total];
  } else {
    if (input.baseIn !== 0n)
      return {
        kind: 'unexplained',
        reason: `base moved (${input.baseIn}) although pre-funded sells hold theirs in the book`,
      };
    totals = possibleTotals(sorted, input.sizeStep);
  }
  const found = totals.flatMap((t) => solveForTotal(input, sorted, t).map((s) => ({ total: t, ...s })));
  const distinct = [...new Set(found.map((s) => s.total))];
  if (distinct.length === 0) {
    return {
      kind: 'unexplained',
      reason: `no fill of our resting ${input.side} orders explains base ${input.baseIn} and quote ${input.quoteIn}`,
    };
  }
  if (distinct.length > 1)
    return { kind: 'ambiguous', options: found.map((s) => ({ filled: s.total, price: s.range[0] })) };
  const best = found[0] as (typeof found)[number];
  const p = input.tradePrice ?? pick(best.range, input);
  return {
    kind: 'attributed',
    fills: price(input, best.alloc, p, best.variant).fills,
    price: p,
    priceExact: input.tradePrice !== null || best.range[0] === best.range[1],
  };
}
