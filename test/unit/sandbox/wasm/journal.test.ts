import { describe, expect, it } from 'vitest';
import { Journal } from '../../../../src/sandbox/wasm/journal.ts';

describe('the undo journal', () => {
  it('rolls sets, deletes and recorded steps back to a mark, newest first', () => {
    const j = new Journal();
    const m = new Map([['a', 1]]);
    let book = 'before';
    j.set(m, 'a', 2);
    const mark = j.mark();
    j.set(m, 'b', 3);
    j.delete(m, 'a');
    const saved = book;
    j.record(() => (book = saved));
    book = 'after';
    j.rollback(mark);
    expect([[...m.entries()], book]).toEqual([[['a', 2]], 'before']);
    j.rollback();
    expect([...m.entries()]).toEqual([['a', 1]]);
  });

  it('keeps every change on commit', () => {
    const j = new Journal();
    const m = new Map<string, number>();
    j.set(m, 'x', 1);
    j.commit();
    j.rollback();
    expect(m.get('x')).toBe(1);
  });
});
