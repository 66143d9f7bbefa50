/**
 * A fund's NAV carried forward: an accumulating fund grows at its annual rate (simple interest) from the
 * NAV's time to now, with ACT/360 or ACT/365F counted on exact elapsed time. Before its own time (a NAV dated
 * ahead of the reader's clock) nothing accrues.
 */
import { Decimal } from '../decimal.ts';

const DAY_MS = 86_400_000;

export function accruedNav(
  nav: Decimal,
  navAtMs: number,
  nowMs: number,
  accrual: { readonly ratePercent: string; readonly dayCount: 'ACT/360' | 'ACT/365F' } | undefined,
): Decimal {
  if (accrual === undefined || nowMs <= navAtMs) return nav;
  const days = new Decimal(nowMs - navAtMs).div(DAY_MS);
  const year = accrual.dayCount === 'ACT/360' ? 360 : 365;
  return nav.mul(new Decimal(1).add(new Decimal(accrual.ratePercent).div(100).mul(days).div(year)));
}

/**
 * The time a NAV describes, epoch ms: a `YYYY-MM-DD` valuation date counts from the end of that day (UTC), when
 * the day's valuation is done; an ISO 8601 date-time is taken as it is. Null when the text is neither.
 */
export function navTimeOf(text: string): number | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const [y, m, d] = text.split('-').map(Number) as [number, number, number];
    const ms = Date.UTC(y, m - 1, d);
    const back = new Date(ms);
    return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d ? ms + DAY_MS : null;
  }
  const ms = Date.parse(text);
  return Number.isFinite(ms) && /^\d{4}-\d{2}-\d{2}T/.test(text) ? ms : null;
}
