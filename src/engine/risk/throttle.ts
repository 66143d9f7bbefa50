/**
 * Placement throttles (Commission Delegated Regulation (EU) 2017/589, "RTS 6": message-rate controls before
 * an order leaves). A throttle bounds the placement transactions of its scope (a wallet over all its pairs, or
 * one pair) in two ways, each off unless configured:
 * - `perBlock`: no more than this many placements sent and not yet included. A block or ledger can only take
 *   transactions that are in flight when it is made, so none ever holds more than this many of the scope's.
 * - `perSecond`: no more than this many placements sent in any one second.
 * A placement reserves its place in every throttle of its scope at once (all or none, synchronously, so pairs
 * of one wallet cannot both take the last place) and gives it back when its outcome is known. A placement
 * that would exceed a limit is not sent: the pair's next round decides again (after the outcome that frees a
 * place, or at the moment the second's window allows one), with the market of that moment. Cancellations are
 * never throttled: they are how risk leaves the book.
 */
import type { ThrottleLimitsConfig } from '../../core/config/throttle-config.ts';

export interface ThrottleLimits {
  readonly perBlock: number | null;
  readonly perSecond: number | null;
}

export const NO_THROTTLE: ThrottleLimits = { perBlock: null, perSecond: null };

/** The limits of a scope: the pair's own keys win over the configured defaults, key by key. */
export function throttleLimits(defaults: ThrottleLimitsConfig, own: ThrottleLimitsConfig = {}): ThrottleLimits {
  return {
    perBlock: own.perBlock ?? defaults.perBlock ?? null,
    perSecond: own.perSecond ?? defaults.perSecond ?? null,
  };
}

export type ThrottleVerdict =
  | { readonly ok: true; readonly release: () => void }
  | {
      readonly ok: false;
      readonly scope: string;
      readonly rule: 'perBlock' | 'perSecond';
      readonly detail: string;
      /** When the second's window lets one more through (perSecond); null: when a placement in flight ends. */
      readonly retryAtMs: number | null;
    };

const WINDOW_MS = 1_000;

export class Throttle {
  /** What the throttle bounds, for logs and metrics: `wallet` or `pair`. */
  readonly scope: string;
  readonly #limits: () => ThrottleLimits;
  #inFlight = 0;
  /** Send times within the last second, oldest first. */
  #sent: number[] = [];

  constructor(scope: string, limits: () => ThrottleLimits) {
    this.scope = scope;
    this.#limits = limits;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Sent within the second before `nowMs`. */
  sentWithin(nowMs: number): number {
    while (this.#sent.length > 0 && (this.#sent[0] as number) <= nowMs - WINDOW_MS) this.#sent.shift();
    return this.#sent.length;
  }

  /** Why one more placement may not go now, or null. */
  refusal(nowMs: number): Exclude<ThrottleVerdict, { ok: true }> | null {
    const l = this.#limits();
    if (l.perBlock !== null && this.#inFlight >= l.perBlock)
      return {
        ok: false,
        scope: this.scope,
        rule: 'perBlock',
        detail: `${this.#inFlight} placements of the ${this.scope} not yet included, at most ${l.perBlock} a block or ledger`,
        retryAtMs: null,
      };
    if (l.perSecond !== null && this.sentWithin(nowMs) >= l.perSecond)
      return {
        ok: false,
        scope: this.scope,
        rule: 'perSecond',
        detail: `${this.#sent.length} placements of the ${this.scope} in the last second, at most ${l.perSecond}`,
        retryAtMs: (this.#sent[this.#sent.length - l.perSecond] as number) + WINDOW_MS,
      };
    return null;
  }

  /** Takes a place; the returned function gives it back (once, however often it is called). */
  take(nowMs: number): () => void {
    this.#inFlight += 1;
    this.#sent.push(nowMs);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#inFlight -= 1;
    };
  }
}

/** A place in every throttle at once, or the first refusal (nothing taken). */
export function acquire(throttles: readonly Throttle[], nowMs: number): ThrottleVerdict {
  for (const t of throttles) {
    const refused = t.refusal(nowMs);
    if (refused !== null) return refused;
  }
  const releases = throttles.map((t) => t.take(nowMs));
  return { ok: true, release: () => releases.forEach((r) => r()) };
}

/** A throttle episode ends once no placement has been held for this long. */
export const THROTTLE_QUIET_MS = 10_000;

/**
 * Says a pair's throttling once: a line when placements start being held (which limit, with its numbers) and
 * one when none has been held for `THROTTLE_QUIET_MS`, with how many were held and for how long.
 */
export class ThrottleEpisodes {
  #first: { atMs: number; rule: string } | null = null;
  #lastMs = 0;
  #held = 0;

  /** A placement was held: the line to say, if this starts an episode. */
  held(nowMs: number, refused: Exclude<ThrottleVerdict, { ok: true }>): string | null {
    this.#lastMs = nowMs;
    this.#held += 1;
    if (this.#first !== null) return null;
    this.#first = { atMs: nowMs, rule: `${refused.scope} ${refused.rule}` };
    return `placements throttled (${refused.scope} ${refused.rule}): ${refused.detail}`;
  }

  /** A placement went out: the line to say, if that ends an episode. */
  passed(nowMs: number): string | null {
    if (this.#first === null || nowMs - this.#lastMs < THROTTLE_QUIET_MS) return null;
    const line = `placements no longer throttled: ${this.#held} held over ${Math.round((this.#lastMs - this.#first.atMs) / 1000)} s (first by ${this.#first.rule})`;
    this.#first = null;
    this.#held = 0;
    return line;
  }

  /** The limit that started the episode under way (the board); null when none is. */
  get rule(): string | null {
    return this.#first?.rule ?? null;
  }
}
