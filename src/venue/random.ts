/** Chance, passed in: venue clients never draw a random number directly, so tests give them a fixed source. */

/** A number in [0, 1), like Math.random. */
export type Random = () => number;

export const systemRandom: Random = Math.random;
