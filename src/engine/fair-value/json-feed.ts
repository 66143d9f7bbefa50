/**
 * One HTTP(S) JSON document read for a number and its time: a price feed, or a benchmark yield. The number
 * may be JSON text or a JSON number (read through its shortest text, never rounded further); the time is
 * unix seconds, unix milliseconds (any value above 10^11) or ISO 8601 text. A request that does not answer
 * within the timeout is abandoned. User info in the URL travels as a Basic authorization. Every failure is a DltError naming the endpoint (without its query or
 * credentials) and what was wrong.
 */
import type { Clock } from '../../core/clock.ts';
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { safeUrl, withoutCredentials } from '../../core/url.ts';

export interface JsonFeedOptions {
  readonly url: string;
  readonly pricePath: string;
  readonly timePath: string;
  readonly timeoutMs: number;
  /** Header values already read (secrets included). */
  readonly headers: Readonly<Record<string, string>>;
  readonly clock: Clock;
  readonly fetch?: typeof globalThis.fetch;
}

export interface FeedValue {
  readonly value: Decimal;
  readonly atMs: number;
}

/** The value at a dotted path (`data.0.price`); undefined when a step is missing. */
export function atPath(doc: unknown, path: string): unknown {
  let here: unknown = doc;
  for (const step of path.split('.')) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Record<string, unknown>)[step];
  }
  return here;
}

/** A number of the document as a Decimal; null when it is not one. */
export function decimalOf(v: unknown): Decimal | null {
  const text = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : null;
  if (text === null || !/^-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/.test(text)) return null;
  return new Decimal(text);
}

/** A time of the document as epoch ms: unix seconds, unix ms (above 10^11) or ISO 8601 text; null otherwise. */
export function timeOf(v: unknown): number | null {
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) {
    const ms = Date.parse(v);
    return Number.isFinite(ms) ? ms : null;
  }
  const d = decimalOf(v);
  if (d === null || d.lte(0)) return null;
  return d.gt(1e11) ? d.round().toNumber() : d.mul(1000).round().toNumber();
}

export class JsonFeed {
  readonly #options: JsonFeedOptions;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly endpoint: string;

  constructor(options: JsonFeedOptions) {
    this.#options = options;
    this.endpoint = safeUrl(options.url);
    const { url, authorization } = withoutCredentials(options.url);
    this.#url = url;
    this.#headers = {
      accept: 'application/json',
      ...(authorization === null ? {} : { authorization }),
      ...options.headers,
    };
  }

  #fail(message: string, cause?: unknown): DltError {
    return new DltError('E_FAIR_VALUE_FEED', `feed ${this.endpoint}: ${message}`, {
      details: { endpoint: this.endpoint },
      ...(cause === undefined ? {} : { cause }),
    });
  }

  async #document(): Promise<unknown> {
    const abort = new AbortController();
    const timer = this.#options.clock.setTimer(
      () => abort.abort(this.#fail(`no answer within ${this.#options.timeoutMs} ms`)),
      this.#options.timeoutMs,
    );
    try {
      const res = await (this.#options.fetch ?? globalThis.fetch)(this.#url, {
        headers: this.#headers,
        signal: abort.signal,
      });
      const text = await res.text();
      if (!res.ok) throw this.#fail(`HTTP ${res.status}`);
      try {
        return JSON.parse(text) as unknown;
      } catch (e) {
        throw this.#fail('the answer is not JSON', e);
      }
    } catch (e) {
      if (e instanceof DltError) throw e;
      if (abort.signal.aborted) throw abort.signal.reason as DltError;
      throw this.#fail(`request failed (${(e as Error).message})`, e);
    } finally {
      timer.cancel();
    }
  }

  /** Reads the document once: its number and time, or a DltError saying what was wrong. */
  async read(): Promise<FeedValue> {
    const doc = await this.#document();
    const value = decimalOf(atPath(doc, this.#options.pricePath));
    if (value === null) throw this.#fail(`no number at ${this.#options.pricePath}`);
    const atMs = timeOf(atPath(doc, this.#options.timePath));
    if (atMs === null) throw this.#fail(`no time at ${this.#options.timePath}`);
    return { value, atMs };
  }
}
