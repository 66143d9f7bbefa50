/**
 * One venue REST GET with the client discipline the specification asks for: a timeout per attempt,
 * exponential backoff with full jitter on 429, 5xx, timeouts and connection failures (all venue REST
 * calls are reads, so retrying is safe), `Retry-After` honoured on 429 and 503, a bounded retry budget,
 * AppError decoding, and metrics for every response. 4xx other than 429 are final at once, except a 401 on a
 * participant endpoint: the token source is told the token was refused and, when it can issue a fresh one,
 * the call is made once more with it; a second 401 is final (E_REST_AUTH, naming both refusals).
 * The bearer token is sent only where asked and never appears in a log line or an error.
 */
import type { Logger } from 'pino';
import { DltError } from '../core/errors.ts';
import { silentLogger } from '../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../telemetry/metrics.ts';
import { failureFields, incidentsOf, type Incidents } from '../telemetry/incidents.ts';
import { staticToken, type AccessTokenSource } from './auth/access-token.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/system-clock.ts';
import { systemRandom, type Random } from './random.ts';
import { httpError } from './payload/app-error.ts';
import { parseVenueJson } from './payload/json.ts';
import { malformedPayload } from './payload/problems.ts';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy } from './retry-policy.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface RestTransportOptions {
  /** Base URL including `/api/v1`. */
  readonly baseUrl: string;
  /** A fixed bearer token for participant and wallet endpoints (ignored when `tokens` is given). */
  readonly accessToken?: string;
  /** Where bearer tokens come from (client credentials); default the fixed `accessToken`, if any. */
  readonly tokens?: AccessTokenSource;
  /** Per attempt, reading the body included. */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly fetch?: typeof globalThis.fetch;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
}

export type QueryValue = string | number | boolean | undefined;

export interface RestCall {
  /** Path template for metrics and logs, e.g. `/tradingpairs/{id}/pricelevels`. */
  readonly endpoint: string;
  /** Concrete path below the base URL, segments already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** Send the bearer token (participant and wallet endpoints). */
  readonly auth?: boolean;
  /** Aborts the call, waits included; the call then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

type Attempt =
  | { readonly kind: 'response'; readonly status: number; readonly text: string; readonly retryAfter: string | null }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'network'; readonly error: unknown };

const TIMED_OUT = Symbol('timed out');

function retryReason(a: Attempt): string | undefined {
  if (a.kind !== 'response') return a.kind;
  if (a.status === 429) return '429';
  return a.status >= 500 ? '5xx' : undefined;
}

export function buildPath(path: string, query: Readonly<Record<string, QueryValue>> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const q = params.toString();
  return q === '' ? path : `${path}?${q}`;
}

export class RestTransport {
  readonly #base: string;
  readonly #options: RestTransportOptions;
  readonly #policy: RetryPolicy;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #fetch: typeof globalThis.fetch;
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  readonly #tokens: AccessTokenSource | undefined;
  readonly #incidents: Incidents;

  constructor(options: RestTransportOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#options = options;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? systemRandom;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#logger = options.logger ?? silentLogger();
    this.#metrics = options.metrics ?? createMetrics();
    this.#incidents = incidentsOf(this.#logger);
    const fixed = options.accessToken;
    this.#tokens = options.tokens ?? (fixed === undefined || fixed === '' ? undefined : staticToken(fixed));
  }

  get metrics(): Metrics {
    return this.#metrics;
  }

  get logger(): Logger {
    return this.#logger;
  }

  /** GETs a path and returns the parsed JSON body; every failure is a DltError (or the caller's abort reason). */
  async get(call: RestCall): Promise<unknown> {
    const path = buildPath(call.path, call.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    let token = call.auth === true ? await this.#token(call, path) : undefined;
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      const outcome = await this.#attempt(call, path, headers);
      if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
        this.#incidents.succeeded('venue REST', this.#clock.now());
        return this.#parse(call, outcome.text);
      }
      if (
        outcome.kind === 'response' &&
        outcome.status === 401 &&
        token !== undefined &&
        !renewed &&
        this.#tokens?.refused(token) === true
      ) {
        // The token expired or was revoked: one more try with a fresh one (outside the retry budget).
        renewed = true;
        this.#metrics.venue.restRetries.inc({ endpoint: call.endpoint, reason: '401' });
        this.#logger.info(
          { endpoint: call.endpoint, path, attempt },
          'venue refused the access token (401); retrying once with a fresh one',
        );
        token = await this.#token(call, path);
        continue;
      }
      const reason = retryReason(outcome);
      const retriesUsed = attempt - 1 - (renewed ? 1 : 0);
      const retryAfterMs =
        outcome.kind === 'response' && (outcome.status === 429 || outcome.status === 503)
          ? parseRetryAfter(outcome.retryAfter, this.#clock.now())
          : undefined;
      const tooLong = retryAfterMs !== undefined && retryAfterMs > this.#policy.maxRetryAfterMs;
      if (reason === undefined || retriesUsed >= this.#policy.retries || tooLong) {
        throw this.#fail(call, path, outcome, attempt, retryAfterMs, renewed);
      }
      const delayMs = backoffDelay(retriesUsed, this.#policy, this.#random, retryAfterMs);
      this.#metrics.venue.restRetries.inc({ endpoint: call.endpoint, reason });
      // One incident for the venue's REST API: said when it starts and when calls have worked again a while.
      this.#incidents.failed(
        'venue REST',
        this.#clock.now(),
        call.endpoint,
        { code: reason, reason: `${path}: ${reason}, retrying` },
        { attempt, delayMs },
      );
      await this.#clock.sleep(delayMs, call.signal);
    }
  }

  async #token(call: RestCall, path: string): Promise<string> {
    const source = this.#tokens;
    const fail = (error: DltError): never => {
      this.#metrics.venue.restErrors.inc({ endpoint: call.endpoint, code: error.code });
      this.#logger.warn({ endpoint: call.endpoint, ...failureFields(error) }, 'venue REST call failed');
      throw error;
    };
    if (source === undefined) {
      return fail(
        new DltError('E_REST_AUTH', `GET ${path}: no access token configured for a participant endpoint`, {
          details: { endpoint: call.endpoint, path },
        }),
      );
    }
    try {
      return await source.token(call.signal);
    } catch (e) {
      if (call.signal?.aborted === true) throw call.signal.reason;
      const cause =
        e instanceof DltError ? e : new DltError('E_AUTH_TOKEN', `no access token: ${(e as Error).message}`);
      return fail(
        new DltError(cause.code, `GET ${path}: ${cause.message}`, {
          details: { ...cause.details, endpoint: call.endpoint, path },
          cause,
        }),
      );
    }
  }

  async #attempt(call: RestCall, path: string, headers: Record<string, string>): Promise<Attempt> {
    call.signal?.throwIfAborted();
    const controller = new AbortController();
    const timer = this.#clock.setTimer(
      () => controller.abort(TIMED_OUT),
      this.#options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    );
    const signal = call.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, call.signal]);
    const started = this.#clock.now();
    const end = this.#metrics.venue.restDuration.startTimer({ endpoint: call.endpoint });
    try {
      const res = await this.#fetch(`${this.#base}${path}`, { method: 'GET', headers, signal, redirect: 'error' });
      const text = await res.text();
      this.#metrics.venue.restRequests.inc({ endpoint: call.endpoint, status: String(res.status) });
      this.#logger.debug(
        { endpoint: call.endpoint, path, status: res.status, ms: this.#clock.now() - started },
        'venue REST response',
      );
      return { kind: 'response', status: res.status, text, retryAfter: res.headers.get('retry-after') };
    } catch (error) {
      if (call.signal?.aborted === true) throw call.signal.reason;
      const kind = controller.signal.aborted ? 'timeout' : 'network';
      this.#metrics.venue.restRequests.inc({ endpoint: call.endpoint, status: kind });
      return kind === 'timeout' ? { kind } : { kind, error };
    } finally {
      timer.cancel();
      end();
    }
  }

  #parse(call: RestCall, text: string): unknown {
    try {
      return parseVenueJson(text);
    } catch (e) {
      this.#metrics.venue.malformedPayloads.inc({ source: call.endpoint });
      const error = malformedPayload(
        call.endpoint,
        [{ field: '(root)', value: text.slice(0, 200), message: 'response body is not JSON' }],
        e,
      );
      this.#metrics.venue.restErrors.inc({ endpoint: call.endpoint, code: error.code });
      this.#logger.warn({ endpoint: call.endpoint, ...failureFields(error) }, 'venue REST response is not JSON');
      throw error;
    }
  }

  #fail(
    call: RestCall,
    path: string,
    outcome: Attempt,
    attempts: number,
    retryAfterMs: number | undefined,
    renewed = false,
  ): DltError {
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
    const details = {
      endpoint: call.endpoint,
      path,
      attempts,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
    let error: DltError;
    if (outcome.kind === 'response') {
      const e = httpError({
        method: 'GET',
        endpoint: call.endpoint,
        path,
        status: outcome.status,
        bodyText: outcome.text,
        attempts,
      });
      if (renewed && outcome.status === 401) {
        error = new DltError(
          e.code,
          `${e.message}; a freshly issued access token was refused too: the credentials lack access to this resource, or the venue does not accept this token issuer`,
          {
            details: { ...e.details, tokenRenewed: true },
          },
        );
      } else {
        error =
          retryAfterMs === undefined
            ? e
            : new DltError(e.code, `${e.message}; Retry-After ${retryAfterMs} ms`, {
                details: { ...e.details, retryAfterMs },
              });
      }
    } else if (outcome.kind === 'timeout') {
      error = new DltError('E_REST_TIMEOUT', `GET ${path}: no response within ${timeoutMs} ms${tries}`, {
        details: { ...details, timeoutMs },
      });
    } else {
      const cause =
        outcome.error instanceof Error && outcome.error.cause instanceof Error ? outcome.error.cause : outcome.error;
      const message = cause instanceof Error ? cause.message : String(cause);
      error = new DltError('E_REST_TRANSPORT', `GET ${path}: ${message}${tries}`, { details, cause: outcome.error });
    }
    this.#metrics.venue.restErrors.inc({ endpoint: call.endpoint, code: error.code });
    // A failure that ran out of retries (429, 5xx, timeout, network) is one more of the REST incident; any
    // other answer is said on its own, by code and reason: neither carries a stack.
    if (retryReason(outcome) !== undefined)
      this.#incidents.failed('venue REST', this.#clock.now(), call.endpoint, error, { attempts, gaveUp: true });
    else this.#logger.warn({ endpoint: call.endpoint, ...failureFields(error) }, 'venue REST call failed');
    return error;
  }
}
