import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../../src/core/bounded-memo.ts';

describe('a bounded memo', () => {
  it('derives a value once and gives it back while it is kept', () => {
    const memo = new BoundedMemo<string, string>(4);
    const made: string[] = [];
    const upper = (k: string) => {
      made.push(k);
      return k.toUpperCase();
    };
    expect([memo.of('a', upper), memo.of('b', upper), memo.of('a', upper)]).toEqual(['A', 'B', 'A']);
    expect(made).toEqual(['a', 'b']);
  });

  it('never holds more than its limit: at the limit a new key starts it over, a kept key is replaced in place', () => {
    const memo = new BoundedMemo<number, number>(3);
    for (const k of [1, 2, 3]) memo.set(k, k * 10);
    memo.set(2, 21);
    expect([memo.size, memo.get(1), memo.get(2)]).toEqual([3, 10, 21]);
    memo.set(4, 40);
    expect([memo.size, memo.get(1), memo.get(4)]).toEqual([1, undefined, 40]);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new BoundedMemo(0)).toThrow(/positive integer/);
    expect(() => new BoundedMemo(1.5)).toThrow(/positive integer/);
  });
});
