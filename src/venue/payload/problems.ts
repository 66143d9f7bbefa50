/**
 * How a malformed venue payload is described: one problem per bad field, each with the field's path and
 * the value found there, so a log line or an error says exactly what the venue sent.
 */
import type { z } from 'zod';
import { DltError } from '../../core/errors.ts';

export interface PayloadProblem {
  /** Dotted path from the payload root, e.g. `items.3.smartContractBase`. */
  readonly field: string;
  readonly value: unknown;
  readonly message: string;
}

const SHOWN_VALUE_LENGTH = 80;

/** A value as short text for messages (the full value stays in the error details). */
export function showValue(value: unknown): string {
  let text: string;
  try {
    text =
      value === undefined
        ? 'undefined'
        : (JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > SHOWN_VALUE_LENGTH ? `${text.slice(0, SHOWN_VALUE_LENGTH)}...` : text;
}

export function joinPath(...parts: readonly (string | number)[]): string {
  return parts
    .map(String)
    .filter((p) => p !== '')
    .join('.');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cursor = input;
  for (const key of path) {
    if (cursor === null || typeof cursor !== 'object') return undefined;
    cursor = (cursor as Record<PropertyKey, unknown>)[key];
  }
  return cursor;
}

/** zod issues as payload problems, each with the value found at its path. */
export function zodProblems(error: z.ZodError, input: unknown, prefix = ''): PayloadProblem[] {
  return error.issues.map((issue) => ({
    field: joinPath(prefix, ...issue.path.map(String)) || '(root)',
    value: valueAt(input, issue.path),
    message: issue.message,
  }));
}

/** The error for a payload that cannot be used; `source` names the endpoint or channel. */
export function malformedPayload(source: string, problems: readonly PayloadProblem[], cause?: unknown): DltError {
  const lines = problems.map((p) => `${p.field}: ${p.message} (got ${showValue(p.value)})`);
  return new DltError('E_PAYLOAD_MALFORMED', `${source}: malformed payload: ${lines.join('; ')}`, {
    details: { source, problems },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** One problem as an error (for hand-written decoders that stop at the first bad field). */
export function fieldError(source: string, field: string, value: unknown, message: string): DltError {
  return malformedPayload(source, [{ field, value, message }]);
}

/** The problems carried by an error, when it is a payload or pair validation error. */
export function problemsOf(error: unknown): PayloadProblem[] {
  if (error instanceof DltError) {
    const problems = error.details.problems;
    if (Array.isArray(problems)) {
      return problems.map((p: unknown) =>
        typeof p === 'string'
          ? { field: p.split(':')[0] ?? '(root)', value: undefined, message: p }
          : (p as PayloadProblem),
      );
    }
  }
  return [{ field: '(root)', value: undefined, message: error instanceof Error ? error.message : String(error) }];
}

export interface Lenient<T> {
  readonly items: T[];
  /** Items that failed, by index, with what was wrong. */
  readonly rejected: { readonly index: number; readonly problems: PayloadProblem[] }[];
}

/** Parses every item; a bad item is set aside with its problems instead of failing the whole list. */
export function parseEach<T>(items: readonly unknown[], parseItem: (raw: unknown, index: number) => T): Lenient<T> {
  const out: Lenient<T> = { items: [], rejected: [] };
  items.forEach((raw, index) => {
    try {
      out.items.push(parseItem(raw, index));
    } catch (e) {
      if (!(e instanceof DltError)) throw e;
      out.rejected.push({ index, problems: problemsOf(e) });
    }
  });
  return out;
}
