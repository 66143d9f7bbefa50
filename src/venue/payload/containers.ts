/**
 * Where the array of a response sits when the specification does not say: the OHLC series and the order
 * lists are "a JSON object with an array". Accepted: a top-level array, an array under one of the usual
 * names, or the only array-valued property of the object.
 */
import { fieldError } from './problems.ts';

export const USUAL_ARRAY_KEYS = ['items', 'data', 'content', 'results'] as const;

/** The array and its field name (`''` for a top-level array). */
export function findArray(
  body: unknown,
  source: string,
  preferredKeys: readonly string[],
): { items: unknown[]; field: string } {
  if (Array.isArray(body)) return { items: body, field: '' };
  if (body === null || typeof body !== 'object')
    throw fieldError(source, '(root)', body, 'expected an array or an object holding one');
  const raw = body as Record<string, unknown>;
  for (const key of [...preferredKeys, ...USUAL_ARRAY_KEYS]) {
    const value = raw[key];
    if (Array.isArray(value)) return { items: value, field: key };
  }
  const arrays = Object.entries(raw).filter(([, v]) => Array.isArray(v));
  if (arrays.length === 1) {
    const [field, items] = arrays[0] as [string, unknown[]];
    return { items, field };
  }
  throw fieldError(
    source,
    '(root)',
    Object.keys(raw),
    arrays.length === 0 ? 'no array in the response' : 'more than one array; cannot tell which holds the items',
  );
}
