/**
 * Trading pairs through the core's schema (`tradingPairSchema`, `parseTradingPair`), with problems that
 * carry the offending values, and the list envelope `{items, next_cursor, total_count}`.
 */
import { z } from 'zod';
import { DltError } from '../../core/errors.ts';
import { int64Min0 } from '../../core/formats.ts';
import { parseTradingPair, tradingPairSchema, type TradingPair } from '../../core/pair.ts';
import { fieldError, malformedPayload, parseEach, showValue, zodProblems, type Lenient } from './problems.ts';

/** One pair; E_PAIR_INVALID with `{field, value, message}` problems when it fails the specification. */
export function parsePair(raw: unknown, source: string, field = ''): TradingPair {
  const r = tradingPairSchema.safeParse(raw);
  if (!r.success) {
    const problems = zodProblems(r.error, raw, field);
    const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
    throw new DltError(
      'E_PAIR_INVALID',
      `${source}: trading pair ${showValue(id)} is invalid: ${problems.map((p) => `${p.field}: ${p.message} (got ${showValue(p.value)})`).join('; ')}`,
      { details: { source, id, problems } },
    );
  }
  // The core's parser adds what a schema cannot say (a scale must be positive).
  return parseTradingPair(r.data, field === '' ? 'tradingPair' : field);
}

const envelopeSchema = z
  .object({
    items: z.array(z.unknown()),
    next_cursor: z.string().max(255).nullish(),
    total_count: int64Min0.nullish(),
  })
  .loose();

export interface TradingPairPage extends Lenient<TradingPair> {
  /** Items the page held, valid or not (what `total_count` counts). */
  readonly received: number;
  readonly nextCursor?: string;
  readonly totalCount?: number;
}

export function parsePairPage(body: unknown, source: string): TradingPairPage {
  if (Array.isArray(body))
    throw fieldError(
      source,
      '(root)',
      '[...]',
      'expected the list object {items, next_cursor, total_count}, got an array',
    );
  const r = envelopeSchema.safeParse(body);
  if (!r.success) throw malformedPayload(source, zodProblems(r.error, body));
  const page = parseEach(r.data.items, (raw, i) => parsePair(raw, source, `items.${i}`));
  const cursor = r.data.next_cursor;
  const total = r.data.total_count;
  return {
    ...page,
    received: r.data.items.length,
    ...(cursor === null || cursor === undefined || cursor === '' ? {} : { nextCursor: cursor }),
    ...(total === null || total === undefined ? {} : { totalCount: Number(total) }),
  };
}
