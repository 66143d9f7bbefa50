/**
 * The true value of a fixed-rate bond token: a yield that moves (a random walk in basis points per sqrt(hour)
 * of wall time, reverting to its start), priced with the core's bond arithmetic at settlement = the sandbox
 * clock's date in Europe/Berlin, clean or dirty as the venue quotes the token, times its nominal / 100. The
 * start yield is solved so that the start value is the static reference price; a step that would take the
 * price out of the band around the static reference price stops at the band's edge (the yield solved for it).
 * A settlement outside the bond's life (before the issue, on or after maturity) is held at its first or last
 * day, so that a clock set anywhere never stops the market.
 */
import { toVenueLocal } from '../../core/calendar.ts';
import { Decimal } from '../../core/decimal.ts';
import {
  accruedInterest,
  compareDates,
  parsePlainDate,
  priceFromYield,
  yieldFromCleanPrice,
  type BondTerms,
  type PlainDate,
} from '../../core/bond/index.ts';
import type { SeededRandom } from '../flow/random.ts';
import { clampToBand, HOUR_MS, pullOver, type ValueModel } from './walk.ts';

export interface BondQuote {
  readonly terms: BondTerms;
  readonly convention: 'clean' | 'dirty';
  /** Nominal of one token. */
  readonly nominalPerToken: Decimal;
}

export interface BondValueOptions extends BondQuote {
  /** The value at `startMs`: the static reference price. */
  readonly start: Decimal;
  readonly startMs: number;
  /** Standard deviation of the yield's change per sqrt(hour), basis points. */
  readonly yieldVolatilityBps: number;
  readonly bandBps: number;
  readonly reversionPerHour?: number;
  readonly random: SeededRandom;
}

function dayBefore(d: PlainDate): PlainDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day - 1));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** The settlement date at a sandbox instant: its Berlin date, held within the bond's life. */
export function settlementAt(terms: BondTerms, sandboxMs: number): PlainDate {
  const date = parsePlainDate(toVenueLocal(sandboxMs).date, 'settlement');
  if (compareDates(date, terms.issue) < 0) return terms.issue;
  const last = dayBefore(terms.maturity);
  return compareDates(date, last) > 0 ? last : date;
}

/** The token's price at a yield (percent): clean or dirty per 100, times nominal / 100. */
export function tokenPrice(q: BondQuote, settlement: PlainDate, yieldPercent: Decimal): Decimal {
  const p = priceFromYield(q.terms, settlement, yieldPercent);
  return (q.convention === 'dirty' ? p.dirtyPrice : p.cleanPrice).mul(q.nominalPerToken).div(100);
}

/** The yield (percent) at which the token is worth `price`. */
export function yieldOfTokenPrice(q: BondQuote, settlement: PlainDate, price: Decimal): Decimal {
  const per100 = price.mul(100).div(q.nominalPerToken);
  const clean = q.convention === 'dirty' ? per100.sub(accruedInterest(q.terms, settlement)) : per100;
  return yieldFromCleanPrice(q.terms, settlement, clean).yieldPercent;
}

export class BondValue implements ValueModel {
  readonly kind = 'bond' as const;
  /** The yield the walk reverts to: the one that prices the token at the start value. */
  readonly startYield: Decimal;
  readonly #options: BondValueOptions;
  #yield: Decimal;
  #cached: { yieldPercent: Decimal; settlement: string; price: Decimal } | null = null;

  constructor(options: BondValueOptions) {
    this.#options = options;
    this.startYield = yieldOfTokenPrice(options, settlementAt(options.terms, options.startMs), options.start);
    this.#yield = this.startYield;
  }

  step(dtWallMs: number, sandboxMs: number, anchor: Decimal): void {
    const hours = Math.max(0, dtWallMs) / HOUR_MS;
    const shockPercent = (this.#options.yieldVolatilityBps / 100) * Math.sqrt(hours) * this.#options.random.normal();
    const next = this.#yield
      .add(shockPercent.toFixed(12))
      .add(this.startYield.sub(this.#yield).mul(pullOver(hours, this.#options.reversionPerHour)));
    const settlement = settlementAt(this.#options.terms, sandboxMs);
    const price = tokenPrice(this.#options, settlement, next);
    const banded = clampToBand(price, anchor, this.#options.bandBps);
    this.#yield = banded.eq(price) ? next : yieldOfTokenPrice(this.#options, settlement, banded);
  }

  value(sandboxMs: number): Decimal {
    const settlement = settlementAt(this.#options.terms, sandboxMs);
    const key = `${settlement.year}-${settlement.month}-${settlement.day}`;
    const c = this.#cached;
    if (c !== null && c.settlement === key && c.yieldPercent.eq(this.#yield)) return c.price;
    const price = tokenPrice(this.#options, settlement, this.#yield);
    this.#cached = { yieldPercent: this.#yield, settlement: key, price };
    return price;
  }

  yieldPercent(): Decimal {
    return this.#yield;
  }

  shock(bps: number, sandboxMs: number): void {
    const settlement = settlementAt(this.#options.terms, sandboxMs);
    this.#yield = yieldOfTokenPrice(
      this.#options,
      settlement,
      this.value(sandboxMs)
        .mul(10_000 + bps)
        .div(10_000),
    );
  }
}
