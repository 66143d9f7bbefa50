/**
 * A trading day's presence measured and kept up to a point, so that each round measures only the stretch
 * since: the tracker settles what lies a little behind the clock, and an event that lands late (a chain event
 * from a follower behind, a fill attributed after the fact, a window declared for the past) goes back to the
 * last checkpoint before it instead of to the start of the day. The cost of a round then does not depend on
 * how long the day has run.
 */

interface Checkpoint {
  readonly upTo: number;
  readonly continuousMs: number;
  readonly presentMs: number;
}

/** Checkpoints kept per day; beyond, the older half is thinned (a late event then goes back a little further). */
const MAX_CHECKPOINTS = 256;

export class SettledDay {
  readonly day: string;
  readonly #points: Checkpoint[];

  constructor(day: string, fromMs: number) {
    this.day = day;
    this.#points = [{ upTo: fromMs, continuousMs: 0, presentMs: 0 }];
  }

  get #last(): Checkpoint {
    return this.#points.at(-1) as Checkpoint;
  }

  /** Measured and kept: the day up to here. */
  get upTo(): number {
    return this.#last.upTo;
  }

  get continuousMs(): number {
    return this.#last.continuousMs;
  }

  get presentMs(): number {
    return this.#last.presentMs;
  }

  /** The stretch from `upTo` to `to` measured: kept, and a checkpoint to come back to. */
  extend(to: number, measured: { readonly continuousMs: number; readonly presentMs: number }): void {
    const last = this.#last;
    this.#points.push({
      upTo: to,
      continuousMs: last.continuousMs + measured.continuousMs,
      presentMs: last.presentMs + measured.presentMs,
    });
    if (this.#points.length > MAX_CHECKPOINTS) {
      const half = Math.floor(MAX_CHECKPOINTS / 2);
      const thinned = this.#points.slice(1, half).filter((_, i) => i % 2 === 1);
      this.#points.splice(1, half - 1, ...thinned);
    }
  }

  /** Something at `atMs` changed: every checkpoint after it is forgotten (the first, the day's start, stays). */
  reopen(atMs: number): void {
    while (this.#points.length > 1 && this.#last.upTo > atMs) this.#points.pop();
  }
}
