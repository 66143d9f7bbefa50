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

const LONG_RUN = 16;

function isDigitOrDot(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46;
}

/**
 * Whether the text holds 16 or more digits and dots in a row. Any such run covers one of every 16th
 * position, so only those are looked at, and a run is measured only around a hit: about 16 times fewer
 * reads than a plain scan (a regex is slower still: it restarts at every digit).
 */
export function hasLongNumberRun(text: string): boolean {
  for (let i = LONG_RUN - 1; i < text.length;) {
    if (!isDigitOrDot(text.charCodeAt(i))) {
      i += LONG_RUN;
      continue;
    }
    let start = i;
    while (start > 0 && isDigitOrDot(text.charCodeAt(start - 1))) start--;
    let end = i;
    while (end + 1 < text.length && isDigitOrDot(text.charCodeAt(end + 1))) end++;
    if (end - start + 1 >= LONG_RUN) return true;
    i = end + LONG_RUN;
  }
  return false;
}

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
  if (!hasLongNumberRun(text)) return JSON.parse(text);
  return JSON.parse(text, exactReviver as (this: unknown, key: string, value: unknown) => unknown);
}
