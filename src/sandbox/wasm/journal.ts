/**
 * An undo log over the emulator's state. A failed transaction changes nothing but its fee and sequence
 * number, so every contract write goes through here and a failure rolls back to the mark taken before the call.
 */
export class Journal {
  private readonly undo: Array<() => void> = [];

  /** Registers an undo step for a change made outside `set`/`delete` (for example a replaced order book). */
  record(undoStep: () => void): void {
    this.undo.push(undoStep);
  }

  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    if (map.has(key)) {
      const old = map.get(key) as V;
      this.undo.push(() => map.set(key, old));
    } else this.undo.push(() => map.delete(key));
    map.set(key, value);
  }

  delete<K, V>(map: Map<K, V>, key: K): void {
    if (!map.has(key)) return;
    const old = map.get(key) as V;
    this.undo.push(() => map.set(key, old));
    map.delete(key);
  }

  mark(): number {
    return this.undo.length;
  }

  rollback(mark = 0): void {
    while (this.undo.length > mark) (this.undo.pop() as () => void)();
  }

  /** Keeps every change since the start: the log is emptied, the state stays. */
  commit(): void {
    this.undo.length = 0;
  }
}
