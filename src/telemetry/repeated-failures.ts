/**
 * A failure that repeats (a node down, every round failing the same way) is logged once when it starts, then
 * counted: one reminder with the count every `remindMs` while it lasts, and one line when it ends. A different
 * failure under the same key is logged at once, as a new one.
 */
import type { Logger } from 'pino';
import { isDltError } from '../core/errors.ts';

interface Open {
  count: number;
  readonly firstMs: number;
  lastLoggedMs: number;
  readonly signature: string;
}

/** Log fields of an error: a venue or chain error by code and message; anything else whole, stack included. */
export function failureFields(e: unknown): Record<string, unknown> {
  return isDltError(e) ? { code: e.code, reason: e.message } : { err: e };
}

export class RepeatedFailures {
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #remindMs: number;
  readonly #open = new Map<string, Open>();

  constructor(logger: Logger, now: () => number, remindMs = 60_000) {
    this.#logger = logger;
    this.#now = now;
    this.#remindMs = remindMs;
  }

  failed(
    key: string,
    error: unknown,
    message: string,
    fields: Record<string, unknown> = {},
    level: 'warn' | 'error' = 'error',
  ): void {
    const now = this.#now();
    const signature = isDltError(error) ? error.code : error instanceof Error ? error.message : String(error);
    const open = this.#open.get(key);
    if (open === undefined || open.signature !== signature) {
      this.#open.set(key, { count: 1, firstMs: now, lastLoggedMs: now, signature });
      this.#logger[level]({ ...fields, ...failureFields(error) }, message);
      return;
    }
    open.count += 1;
    if (now - open.lastLoggedMs < this.#remindMs) return;
    open.lastLoggedMs = now;
    this.#logger[level](
      { ...fields, ...failureFields(error), repeated: open.count, forMs: now - open.firstMs },
      `${message} (still failing: ${open.count} times in ${Math.round((now - open.firstMs) / 1000)} s)`,
    );
  }

  succeeded(key: string, message: string, fields: Record<string, unknown> = {}): void {
    const open = this.#open.get(key);
    if (open === undefined) return;
    this.#open.delete(key);
    const now = this.#now();
    this.#logger.info(
      { ...fields, failures: open.count, forMs: now - open.firstMs },
      `${message} after ${open.count} failure(s)`,
    );
  }

  /** How many times the failure under `key` happened since it started (0 when none is open). */
  count(key: string): number {
    return this.#open.get(key)?.count ?? 0;
  }
}
