/**
 * A memo of values that can be derived again (an address's encoded form, a call's encoding, a parsed number),
 * bounded: when it holds `limit` entries it starts over. Cheaper than an LRU on a hot path, and for lookups that
 * repeat a small working set the next misses refill it at once.
 */
export class BoundedMemo<K, V> {
  readonly #limit: number;
  readonly #map = new Map<K, V>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a memo's limit is a positive integer: ${limit}`);
    this.#limit = limit;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  set(key: K, value: V): void {
    if (this.#map.size >= this.#limit && !this.#map.has(key)) this.#map.clear();
    this.#map.set(key, value);
  }

  /** The value kept for `key`, else `make(key)`, kept. */
  of(key: K, make: (key: K) => V): V {
    const known = this.#map.get(key);
    if (known !== undefined) return known;
    const made = make(key);
    this.set(key, made);
    return made;
  }

  clear(): void {
    this.#map.clear();
  }
}
