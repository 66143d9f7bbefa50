/**
 * The latency model of a backtest, fitted to the recording itself, per chain: how long after sending a
 * transaction the bot learned its outcome (each `sent` action against the `included` or `refused` action of the
 * same transaction, both on the bot's clock), how many were in flight at once, and how far apart the chain's
 * blocks or ledgers are (recorded events' heights against their times). A replayed transaction goes into the
 * first block after it was sent, as the sandbox's chains and an uncongested network include it; its outcome
 * reaches the bot after a delay drawn from the recorded ones (a seeded draw, so a backtest repeats exactly), and
 * never before that block. Block times are not used for delays: chains stamp them in whole seconds.
 */
import type { RecordedActionRow, RecordedChainEvent } from '../store/recording-read.ts';

export interface ChainLatency {
  /** Recorded delays from sending a transaction to learning its outcome, ascending (ms). */
  readonly samples: readonly number[];
  /** The most transactions the wallet had in flight at once (a chain B wallet waits for a free source account). */
  readonly maxInFlight: number;
  /** Median interval between blocks or ledgers (ms). */
  readonly blockMs: number;
}

export interface LatencySummary {
  readonly chain: 'evm' | 'wasm';
  readonly samples: number;
  readonly p50Ms: number | null;
  readonly p90Ms: number | null;
  readonly blockMs: number;
  readonly maxInFlight: number;
}

const median = (xs: readonly number[]) =>
  xs.length === 0 ? null : (xs.toSorted((a, b) => a - b)[xs.length >> 1] as number);

/** Median block interval of a chain from its recorded events; `fallbackMs` when fewer than two blocks were seen. */
export function blockInterval(events: readonly RecordedChainEvent[], fallbackMs: number): number {
  const blocks = new Map<bigint, number>();
  for (const e of events) blocks.set(e.height, e.blockTimeMs);
  const sorted = [...blocks].toSorted((a, b) => (a[0] < b[0] ? -1 : 1));
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const [h0, t0] = sorted[i - 1] as [bigint, number];
    const [h1, t1] = sorted[i] as [bigint, number];
    if (t1 > t0) gaps.push((t1 - t0) / Number(h1 - h0));
  }
  return Math.max(1, Math.round(median(gaps) ?? fallbackMs));
}

/**
 * The recorded delays of a chain's transactions (pairs of that chain), ascending, and the most that were in
 * flight at once (unbounded, `Infinity`, when the recording has none of ours). A transaction whose outcome the
 * recording does not hold (a cancellation: its end arrives as the order's event, not as an outcome) counts as
 * in flight for the median recorded delay, as long as a placement of that moment took to be decided.
 */
export function fitLatency(
  actions: readonly RecordedActionRow[],
  pairsOfChain: ReadonlySet<string>,
): { readonly samples: number[]; readonly maxInFlight: number } {
  const sent = new Map<string, number>();
  const decided = new Map<string, number>();
  for (const a of actions) {
    if (a.txHash === null || !pairsOfChain.has(a.pairId)) continue;
    if (a.stage === 'sent') sent.set(a.txHash, a.recvMs);
    else if ((a.stage === 'included' || a.stage === 'refused') && !decided.has(a.txHash))
      decided.set(a.txHash, a.recvMs);
  }
  const samples: number[] = [];
  for (const [hash, at] of sent) {
    const end = decided.get(hash);
    if (end !== undefined && end >= at) samples.push(end - at);
  }
  samples.sort((a, b) => a - b);
  const typical = median(samples) ?? 0;
  // +1 as a transaction leaves, -1 as it is decided; at the same moment, decided ones first.
  const steps: Array<[number, number]> = [];
  for (const [hash, at] of sent) {
    const end = decided.get(hash);
    steps.push([at, 1], [end !== undefined && end >= at ? end : at + typical, -1]);
  }
  steps.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of steps) {
    now += d;
    most = Math.max(most, now);
  }
  return { samples, maxInFlight: most === 0 ? Number.POSITIVE_INFINITY : most };
}

export function summary(chain: 'evm' | 'wasm', l: ChainLatency): LatencySummary {
  const q = (p: number) =>
    l.samples.length === 0 ? null : (l.samples[Math.floor(p * (l.samples.length - 1))] as number);
  return {
    chain,
    samples: l.samples.length,
    p50Ms: q(0.5),
    p90Ms: q(0.9),
    blockMs: l.blockMs,
    maxInFlight: l.maxInFlight,
  };
}

/** Draws delays from the recorded ones (none when none was recorded), repeatably from `seed`. */
export function delayDraw(l: ChainLatency, seed: number): () => number {
  let s = seed >>> 0;
  const next = () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => (l.samples.length === 0 ? 0 : (l.samples[Math.floor(next() * l.samples.length)] as number));
}
