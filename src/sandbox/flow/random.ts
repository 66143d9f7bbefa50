/**
 * The simulated market's one source of chance: a seeded generator (mulberry32), so a seed replays the same
 * sequence of decisions. Only decisions are random (which side, how many units, when); prices and sizes
 * are then built from them with Decimal arithmetic on the venue's grids.
 */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exponential with the given mean (waiting times of a Poisson process). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** A generator of its own, derived from this one (so adding a consumer does not shift the others). */
  fork(label: string): SeededRandom {
    let h = this.#state ^ 0x9e3779b9;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
    return new SeededRandom(h >>> 0);
  }
}

/** A function drawing from a generator of its own, forked from `random` under `label`. */
export function drawsOf(random: SeededRandom, label: string): () => number {
  const r = random.fork(label);
  return () => r.next();
}
