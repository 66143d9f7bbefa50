/**
 * Market-making obligations (Commission Delegated Regulation (EU) 2017/578, "RTS 8", and the venue's scheme):
 * firm two-way quotes of comparable size, at or inside a maximum spread, for a share of each trading day's
 * continuous trading time. This module says whether a set of our resting orders meets the terms at one
 * instant (`assessQuotes`) and how much of a stretch of time it met them (`measurePresence`). Pure: every
 * instant is passed in. The terms compiled against a pair's scales are in obligation-rules.ts.
 *
 * A pair of quotes meets the terms when a bid and an ask of ours both rest with at least the minimum size
 * (base units, or quote value at the order's own price), their spread is at or inside the maximum (basis
 * points of the midpoint of the two, or an absolute quote amount; multiplied while the market is stressed),
 * and their sizes are comparable: the larger exceeds the smaller by at most `maxSizeRatio` of the larger
 * (0.5: the two sides differ by at most 50 %), measured in the unit of the minimum size.
 *
 * Comparisons run on the raw integers the chain carries (internal price and quantity scales), so that a
 * quote exactly at a limit is judged exactly, and fast enough to sweep a whole day of orders.
 */
import type { Decimal } from './decimal.ts';
import { findQuotes } from './obligation-search.ts';
import { spreadBpsOf, type BookQuote, type ObligationRules, type Shortfall } from './obligation-rules.ts';

export {
  ObligationRules,
  spreadBpsOf,
  type BookQuote,
  type ObligationTerms,
  type Shortfall,
  type SizeLimit,
  type SpreadLimit,
} from './obligation-rules.ts';

export interface Assessment {
  readonly compliant: boolean;
  /** The compliant pair; otherwise the best bid and ask of the minimum size, or simply the best ones. */
  readonly bid: BookQuote | null;
  readonly ask: BookQuote | null;
  readonly spreadBps: number | null;
  readonly maxSpreadBps: number | null;
  /** Sizes of `bid` and `ask` in the unit of the minimum size. */
  readonly bidSize: Decimal | null;
  readonly askSize: Decimal | null;
  /** Why the quotes fall short; null when compliant. */
  readonly shortfall: Shortfall | null;
}

/** Whether our resting `quotes` meet the obligations now, and with which bid and ask. */
export function assessQuotes(quotes: readonly BookQuote[], rules: ObligationRules, stressed: boolean): Assessment {
  const { bid, ask, shortfall } = findQuotes(quotes, rules, stressed);
  return {
    compliant: shortfall === null,
    bid,
    ask,
    spreadBps: bid !== null && ask !== null ? spreadBpsOf(bid.price, ask.price) : null,
    maxSpreadBps:
      bid !== null && ask !== null
        ? rules.maxSpreadBps(bid.price, ask.price, stressed)
        : rules.terms.maxSpread.unit === 'bps'
          ? rules.maxSpreadBps(0n, 0n, stressed)
          : null,
    bidSize: bid === null ? null : rules.sizeOf(bid),
    askSize: ask === null ? null : rules.sizeOf(ask),
    shortfall,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Presence over time

export interface Interval {
  readonly from: number;
  readonly to: number;
}

/** What the bot saw of a pair's market: continuous trading, a halt, or closed (outside hours, auction, disabled). */
export type MarketState = 'continuous' | 'halted' | 'closed';

export interface MarketObservation {
  readonly atMs: number;
  readonly state: MarketState;
}

/** One of our orders resting from `from` (inclusion) to `to` (its cancel's inclusion, its fill) with this size. */
export interface QuoteSpan extends BookQuote {
  readonly from: number;
  readonly to: number;
}

export interface PresenceInput {
  /** The stretch measured: a trading day, or its start up to now. */
  readonly from: number;
  readonly to: number;
  /** Nothing before this instant counts (nothing was known of the pair yet). */
  readonly observedFrom: number;
  /** Scheduled trading hours (the calendar's session), or the whole day without a calendar. */
  readonly schedule: readonly Interval[];
  /** When the bot was running. Scheduled time outside every run counts as continuous trading and absence. */
  readonly runs: readonly Interval[];
  /** Market states the bot observed, by time; each holds until the next one or the end of its run. */
  readonly market: readonly MarketObservation[];
  /** Exceptional circumstances declared by the operator: not counted at all. */
  readonly exceptions: readonly Interval[];
  /** Stressed market conditions: the spread multiplier applies. */
  readonly stressed: readonly Interval[];
  readonly quotes: readonly QuoteSpan[];
  readonly rules: ObligationRules;
}

/**
 * What a stretch of time was: `continuous` (counted; present or not), `down` (scheduled time while the bot
 * was not running and had not seen the market closed: counted, absent), `halted`, `closed`, `exception` and
 * `unobserved` (not counted).
 */
export type SegmentState = 'continuous' | 'down' | 'halted' | 'closed' | 'exception' | 'unobserved';

export interface Segment {
  readonly from: number;
  readonly to: number;
  readonly state: SegmentState;
  /** Counted in the continuous trading time. */
  readonly counted: boolean;
  readonly present: boolean;
  readonly stressed: boolean;
}

export interface PresenceResult {
  /** Continuous trading time counted (the denominator), ms. */
  readonly continuousMs: number;
  /** Of which the quotes met the terms, ms. */
  readonly presentMs: number;
  /** Of the counted time, the bot was not running, ms. */
  readonly downMs: number;
  readonly haltedMs: number;
  readonly closedMs: number;
  readonly exceptionMs: number;
  /** presentMs / continuousMs; null before any continuous trading time. */
  readonly ratio: number | null;
  /** Consecutive stretches of the same state, presence and stress, in time order. */
  readonly segments: readonly Segment[];
}

function inside(at: number, intervals: readonly Interval[]): boolean {
  for (const interval of intervals) if (at >= interval.from && at < interval.to) return true;
  return false;
}

/**
 * While the bot is down nothing is observed: scheduled time counts as continuous trading without us, unless
 * the bot last saw the market closed in the same session (a stop after the venue closed, on a venue without a
 * calendar). A halt seen before going down does not carry over: halts end by themselves.
 */
function closedWhenLeft(at: number, last: MarketObservation | null, schedule: readonly Interval[]): boolean {
  const session = schedule.find((candidate) => at >= candidate.from && at < candidate.to);
  return last !== null && last.state === 'closed' && session !== undefined && last.atMs >= session.from;
}

/** What the instant `at` was, from the runs, the schedule, the windows and the last market observation. */
function segmentState(input: PresenceInput, at: number, lastMarket: MarketObservation | null): SegmentState {
  const run = input.runs.find((candidate) => at >= candidate.from && at < candidate.to);
  const scheduled = inside(at, input.schedule);
  if (at < input.observedFrom) return 'unobserved';
  if (inside(at, input.exceptions)) return 'exception';
  if (run === undefined) return scheduled && !closedWhenLeft(at, lastMarket, input.schedule) ? 'down' : 'closed';
  // An observation counts only from the run it was made in; before the first one of a run, the schedule says.
  const seen =
    lastMarket !== null && lastMarket.atMs >= run.from ? lastMarket.state : scheduled ? 'continuous' : 'closed';
  return !scheduled ? 'closed' : seen === 'continuous' ? 'continuous' : seen;
}

/**
 * The presence of our quotes over `[from, to)`: a sweep over every instant at which something changes (a
 * quote rests or leaves, the market changes, a run starts or ends, a window opens or closes).
 */
export function measurePresence(input: PresenceInput): PresenceResult {
  const { from, to } = input;
  const cuts = new Set<number>([from, to]);
  const add = (at: number) => {
    if (at > from && at < to) cuts.add(at);
  };
  add(input.observedFrom);
  for (const list of [input.schedule, input.runs, input.exceptions, input.stressed]) {
    for (const interval of list) {
      add(interval.from);
      add(interval.to);
    }
  }
  for (const observation of input.market) add(observation.atMs);
  const quotes = input.quotes.filter((q) => q.to > from && q.from < to && q.to > q.from);
  for (const quote of quotes) {
    add(quote.from);
    add(quote.to);
  }
  const times = [...cuts].toSorted((a, b) => a - b);
  const market = input.market.toSorted((a, b) => a.atMs - b.atMs);
  const byStart = quotes.toSorted((a, b) => a.from - b.from);
  let next = 0;
  let active: QuoteSpan[] = [];
  let marketIndex = 0;
  let lastMarket: MarketObservation | null = null;
  const segments: Segment[] = [];
  const totals = { continuousMs: 0, presentMs: 0, downMs: 0, haltedMs: 0, closedMs: 0, exceptionMs: 0 };
  let cached: { key: string; compliant: boolean } | null = null;

  for (let index = 0; index + 1 < times.length; index++) {
    const start = times[index] as number;
    const end = times[index + 1] as number;
    while (next < byStart.length && (byStart[next] as QuoteSpan).from <= start)
      active.push(byStart[next++] as QuoteSpan);
    active = active.filter((q) => q.to > start);
    while (marketIndex < market.length && (market[marketIndex] as MarketObservation).atMs <= start)
      lastMarket = market[marketIndex++] as MarketObservation;
    const stressed = inside(start, input.stressed);
    const state = segmentState(input, start, lastMarket);
    const counted = state === 'continuous' || state === 'down';
    let present = false;
    if (state === 'continuous') {
      const key = `${stressed}|${active.map((q) => `${q.side}${q.price}:${q.quantity}`).join(',')}`;
      if (cached === null || cached.key !== key)
        cached = { key, compliant: assessQuotes(active, input.rules, stressed).compliant };
      present = cached.compliant;
    }
    const ms = end - start;
    if (counted) totals.continuousMs += ms;
    if (present) totals.presentMs += ms;
    if (state === 'down') totals.downMs += ms;
    if (state === 'halted') totals.haltedMs += ms;
    if (state === 'closed') totals.closedMs += ms;
    if (state === 'exception') totals.exceptionMs += ms;
    const segment: Segment = { from: start, to: end, state, counted, present, stressed };
    const prev = segments.at(-1);
    if (
      prev !== undefined &&
      prev.to === start &&
      prev.state === segment.state &&
      prev.present === segment.present &&
      prev.stressed === segment.stressed
    ) {
      segments[segments.length - 1] = { ...prev, to: end };
    } else segments.push(segment);
  }
  return { ...totals, ratio: totals.continuousMs > 0 ? totals.presentMs / totals.continuousMs : null, segments };
}

/**
 * How much more absence the day can take before its target is out of reach, ms: with `remainingMs` of
 * continuous trading still to come, presence p of continuous time c and target r, absence x from now on
 * leaves (p + remaining - x) / (c + remaining) >= r while x <= p - r c + (1 - r) remaining. Negative: the
 * target can no longer be met today.
 */
export function absenceLeftMs(presentMs: number, continuousMs: number, remainingMs: number, target: number): number {
  return presentMs - target * continuousMs + (1 - target) * remainingMs;
}
