/**
 * JSON text to values without losing money digits. `JSON.parse` turns every number into a double; for a
 * literal of up to 15 significant digits the double's shortest text (`String(n)`) is that same decimal, so
 * converting through `String` is exact. Only a literal of 16 or more significant digits can lose digits,
 * and its text then holds a run of at least 16 digits (and dots). Bodies without such a run take plain
 * `JSON.parse` (the hot path); the others are parsed again with the source text of each number at hand
 * (JSON.parse source text access, V8 in Node 21+), and every number whose double does not give back its
 * source value arrives as a `JsonNumberText` carrying the exact source.
 */
import { Decimal } from '../../core/decimal.ts';

/** A JSON number a double cannot hold exactly, kept as its source text. */
export class JsonNumberText {
  readonly source: string;
  constructor(source: string) {
    this.source = source;
  }
  toJSON(): string {
    return this.source;
  }
}

const LONG_NUMBER_RUN = /[0-9.]{16,}/;

interface ReviverContext {
  readonly source?: string;
}

function exactReviver(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  const source = context.source;
  if (String(value) === source) return value;
  // "1.50" and "1e2" are exact too: only a different decimal value means lost digits.
  return new Decimal(source).eq(new Decimal(String(value))) ? value : new JsonNumberText(source);
}

/** Parses venue JSON; numbers that would lose digits arrive as `JsonNumberText`. Throws SyntaxError. */
export function parseVenueJson(text: string): unknown {
  if (!LONG_NUMBER_RUN.test(text)) return JSON.parse(text);
  return JSON.parse(text, exactReviver as (this: unknown, key: string, value: unknown) => unknown);
}
