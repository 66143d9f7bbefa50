/**
 * `GET /posttrade/recent`: the venue's public post-trade publication (its documentation; not in the
 * specification), newest first. Per item `tradingDateTime` (the finality time), `isin`, `price`, `priceCurrency`,
 * `priceNotation` (`MONE`), `quantity`, `venueOfExecution` (`21XX`), `publicationDateTime`,
 * `transactionIdentificationCode`, `notionalAmount`, `notionalCurrency`. Read tolerantly: amounts as decimal
 * strings or JSON numbers (through their exact text, never used as a double), moments as ISO 8601 or epoch
 * seconds or milliseconds, the list as a top-level array or under `items` (containers.ts). The time, price and
 * quantity are required; an item without them, or with a value that is not one, is set aside with its problems.
 */
import { z } from 'zod';
import type { Decimal } from '../../core/decimal.ts';
import { findArray } from './containers.ts';
import { nonNegativeDecimal } from './decimal-value.ts';
import { malformedPayload, parseEach, zodProblems, type Lenient } from './problems.ts';
import { epochMs } from './timestamp.ts';

const text = z.string().max(255);

const itemSchema = z
  .object({
    tradingDateTime: epochMs,
    price: nonNegativeDecimal,
    quantity: nonNegativeDecimal.refine((d) => !d.isZero(), 'must be more than zero'),
    isin: text.nullish(),
    priceCurrency: text.nullish(),
    priceNotation: text.nullish(),
    venueOfExecution: text.nullish(),
    publicationDateTime: epochMs.nullish(),
    transactionIdentificationCode: text.nullish(),
    notionalAmount: nonNegativeDecimal.nullish(),
    notionalCurrency: text.nullish(),
  })
  .loose();

export interface PostTrade {
  /** `tradingDateTime`: when the trade became final, epoch ms. */
  readonly tradedAtMs: number;
  readonly price: Decimal;
  /** Base tokens. */
  readonly quantity: Decimal;
  readonly isin?: string;
  readonly priceCurrency?: string;
  readonly priceNotation?: string;
  readonly venueOfExecution?: string;
  /** `publicationDateTime`, epoch ms. */
  readonly publishedAtMs?: number;
  /** `transactionIdentificationCode`. */
  readonly transactionId?: string;
  readonly notionalAmount?: Decimal;
  readonly notionalCurrency?: string;
  /** Every field as sent. */
  readonly raw: Readonly<Record<string, unknown>>;
}

function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

export function parsePostTrades(body: unknown, source: string): Lenient<PostTrade> {
  const { items, field } = findArray(body, source, ['trades']);
  return parseEach(items, (raw, i) => {
    const r = itemSchema.safeParse(raw);
    if (!r.success)
      throw malformedPayload(source, zodProblems(r.error, raw, field === '' ? String(i) : `${field}.${i}`));
    const d = r.data;
    const optional = {
      isin: d.isin,
      priceCurrency: d.priceCurrency,
      priceNotation: d.priceNotation,
      venueOfExecution: d.venueOfExecution,
      publishedAtMs: d.publicationDateTime,
      transactionId: d.transactionIdentificationCode,
      notionalAmount: d.notionalAmount,
      notionalCurrency: d.notionalCurrency,
    };
    return {
      tradedAtMs: d.tradingDateTime,
      price: d.price,
      quantity: d.quantity,
      ...Object.fromEntries(Object.entries(optional).filter(([, v]) => present(v))),
      raw: raw as Record<string, unknown>,
    } as PostTrade;
  });
}
