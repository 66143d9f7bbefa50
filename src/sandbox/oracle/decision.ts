/**
 * When a price feed publishes, the way oracle networks decide it: a new answer when the value moved more than
 * the deviation threshold from the last answer, or when the heartbeat has passed since it, whichever comes
 * first. Pure: the caller passes the candidate answer, the last one and the time (the sandbox clock).
 */
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';

export interface FeedPolicy {
  /** Publish when the answer moves more than this many basis points from the last answer. */
  readonly deviationBps: number;
  /** Publish at the latest this long after the last answer, moved or not (sandbox milliseconds). */
  readonly heartbeatMs: number;
}

export const DEFAULT_POLICY: FeedPolicy = { deviationBps: 50, heartbeatMs: 3_600_000 };

export interface LastAnswer {
  /** The published answer, scaled to the feed's decimals. */
  readonly answer: bigint;
  /** When it was published, on the sandbox clock. */
  readonly atMs: number;
  /** Published by a fault (`jump`): the next regular update corrects it whatever the thresholds say. */
  readonly faulty: boolean;
}

export interface DecisionInput {
  readonly last: LastAnswer | null;
  /** The true value now, scaled to the feed's decimals. */
  readonly candidate: bigint;
  readonly nowMs: number;
  /** A frozen feed publishes nothing: its answer grows old. */
  readonly frozen: boolean;
}

export type UpdateReason = 'first' | 'deviation' | 'heartbeat' | 'correction';

/** Why the feed publishes now, or null when it does not. */
export function decideUpdate(input: DecisionInput, policy: FeedPolicy): UpdateReason | null {
  const { last, candidate } = input;
  if (input.frozen) return null;
  if (last === null) return 'first';
  if (last.faulty) return 'correction';
  if (movedBeyond(last.answer, candidate, policy.deviationBps)) return 'deviation';
  if (input.nowMs - last.atMs >= policy.heartbeatMs) return 'heartbeat';
  return null;
}

/** Whether `next` differs from `last` by more than `bps` basis points of `last` (exact, in integers). */
export function movedBeyond(last: bigint, next: bigint, bps: number): boolean {
  const diff = next > last ? next - last : last - next;
  const base = last < 0n ? -last : last;
  return diff * 10_000n > BigInt(bps) * base;
}

/** Checks a policy: whole non-negative basis points, a positive heartbeat. */
export function checkPolicy(p: FeedPolicy): FeedPolicy {
  if (!Number.isSafeInteger(p.deviationBps) || p.deviationBps < 0)
    throw new DltError(
      'E_SANDBOX',
      `oracle deviation threshold must be whole basis points >= 0, got ${p.deviationBps}`,
      {
        details: { part: 'oracle' },
      },
    );
  if (!(Number.isFinite(p.heartbeatMs) && p.heartbeatMs > 0))
    throw new DltError(
      'E_SANDBOX',
      `oracle heartbeat must be a positive number of milliseconds, got ${p.heartbeatMs}`,
      {
        details: { part: 'oracle' },
      },
    );
  return p;
}

/** Checks a feed's decimal places: a whole number 0..38 (an i128 holds 38 digits). */
export function checkDecimals(decimals: number): number {
  if (!Number.isSafeInteger(decimals) || decimals < 0 || decimals > 38)
    throw new DltError('E_SANDBOX', `oracle decimals must be a whole number 0..38, got ${decimals}`, {
      details: { part: 'oracle' },
    });
  return decimals;
}

/**
 * A human value (quote per base) as the feed's integer answer with `decimals` decimal places. Everywhere else
 * the project refuses a value that does not scale exactly; here it is rounded half-even, because an oracle
 * answer is a measurement: a price observed to more digits than the feed carries is reported to the nearest
 * unit of its last place, as oracle networks do.
 */
export function scaleAnswer(value: Decimal, decimals: number): bigint {
  checkDecimals(decimals);
  if (!value.isFinite())
    throw new DltError('E_SANDBOX', `oracle value ${value.toString()} is not a finite number`, {
      details: { part: 'oracle' },
    });
  return BigInt(value.mul(new Decimal(10).pow(decimals)).toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN).toFixed(0));
}

/** The value a faulty oracle reports: `bps` basis points away from the true value (negative: below it). */
export function jumped(value: Decimal, bps: number): Decimal {
  if (!Number.isSafeInteger(bps))
    throw new DltError('E_SANDBOX', `an oracle jump is whole basis points, got ${bps}`, {
      details: { part: 'oracle' },
    });
  return value.mul(10_000 + bps).div(10_000);
}
