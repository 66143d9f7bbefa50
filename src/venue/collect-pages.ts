/**
 * Follows a cursor-paged list to its end. The venue's test environment returns everything in one page and
 * ignores `limit`; a paging venue is recognised by `items.length` falling short of `total_count` and is
 * followed by `next_cursor`. The walk always ends: a missing or repeated cursor, or too many pages, stops it
 * and is reported (the items gathered so far are returned).
 */

export interface Page<T> {
  readonly items: readonly T[];
  /** Items the page held before validation (what `total_count` counts). */
  readonly received: number;
  readonly nextCursor?: string;
  readonly totalCount?: number;
}

export interface PageCheck {
  readonly reason: 'cursor-missing' | 'cursor-repeated' | 'too-many-pages';
  readonly received: number;
  readonly totalCount?: number;
  readonly pages: number;
}

export const MAX_PAGES = 1000;

export async function collectPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  report: (check: PageCheck) => void,
  maxPages = MAX_PAGES,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let received = 0;
  let total: number | undefined;
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    received += page.received;
    total = page.totalCount ?? total;
    const known = total === undefined ? {} : { totalCount: total };
    if (total !== undefined && received >= total) return items;
    if (page.nextCursor === undefined) {
      if (total !== undefined) report({ reason: 'cursor-missing', received, pages, ...known });
      return items;
    }
    if (seen.has(page.nextCursor)) {
      report({ reason: 'cursor-repeated', received, pages, ...known });
      return items;
    }
    if (pages >= maxPages) {
      report({ reason: 'too-many-pages', received, pages, ...known });
      return items;
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}
