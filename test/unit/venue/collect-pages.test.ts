import { describe, expect, it } from 'vitest';
import { collectPages, type Page, type PageCheck } from '../../../src/venue/collect-pages.ts';

function pages(list: Record<string, Page<number>>) {
  const asked: (string | undefined)[] = [];
  return {
    asked,
    fetch: (cursor: string | undefined) => {
      asked.push(cursor);
      const page = list[cursor ?? 'first'];
      if (page === undefined) throw new Error(`no page ${cursor}`);
      return Promise.resolve(page);
    },
  };
}

describe('collecting a cursor-paged list', () => {
  it('stops after one page when items.length equals total_count (the test environment), even with a cursor', async () => {
    const p = pages({ first: { items: [1, 2, 3], received: 3, totalCount: 3, nextCursor: 'c2' } });
    const checks: PageCheck[] = [];
    expect(await collectPages(p.fetch, (c) => checks.push(c))).toEqual([1, 2, 3]);
    expect(p.asked).toEqual([undefined]);
    expect(checks).toEqual([]);
  });

  it('follows next_cursor while fewer items than total_count have arrived', async () => {
    const p = pages({
      first: { items: [1, 2], received: 2, totalCount: 5, nextCursor: 'c2' },
      c2: { items: [3, 4], received: 2, totalCount: 5, nextCursor: 'c3' },
      c3: { items: [5], received: 1, totalCount: 5 },
    });
    expect(await collectPages(p.fetch, () => undefined)).toEqual([1, 2, 3, 4, 5]);
    expect(p.asked).toEqual([undefined, 'c2', 'c3']);
  });

  it('counts items the page held but validation set aside, so a bad item does not cause another request', async () => {
    const p = pages({ first: { items: [1, 3], received: 3, totalCount: 3, nextCursor: 'c2' } });
    expect(await collectPages(p.fetch, () => undefined)).toEqual([1, 3]);
    expect(p.asked).toEqual([undefined]);
  });

  it('without total_count, follows cursors until there is none', async () => {
    const p = pages({ first: { items: [1], received: 1, nextCursor: 'c2' }, c2: { items: [2], received: 1 } });
    expect(await collectPages(p.fetch, () => undefined)).toEqual([1, 2]);
  });

  it('reports a short list without a cursor, a repeated cursor and a runaway walk, returning what arrived', async () => {
    const checks: PageCheck[] = [];
    const report = (c: PageCheck) => void checks.push(c);
    expect(await collectPages(pages({ first: { items: [1], received: 1, totalCount: 4 } }).fetch, report)).toEqual([1]);
    const loop = pages({
      first: { items: [1], received: 1, totalCount: 9, nextCursor: 'a' },
      a: { items: [2], received: 1, nextCursor: 'a' },
    });
    expect(await collectPages(loop.fetch, report)).toEqual([1, 2]);
    const endless = {
      fetch: (c: string | undefined) => Promise.resolve({ items: [0], received: 1, nextCursor: `${c ?? ''}x` }),
    };
    expect(await collectPages(endless.fetch, report, 3)).toEqual([0, 0, 0]);
    expect(checks).toEqual([
      { reason: 'cursor-missing', received: 1, totalCount: 4, pages: 1 },
      { reason: 'cursor-repeated', received: 2, totalCount: 9, pages: 2 },
      { reason: 'too-many-pages', received: 3, pages: 3 },
    ]);
  });
});
