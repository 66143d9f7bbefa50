/**
 * Bearer tokens from an OAuth 2.0 client-credentials grant (RFC 6749 section 4.4), the way the venue's SDK
 * authenticates: a client id and secret exchanged at the token endpoint. The grant request and the checks of
 * the answer are oauth4webapi's (a standards-based client with no dependencies); this file only decides when
 * to ask:
 *
 * - the token is cached and renewed ahead of its expiry: once `renewAt` (80 %) of its `expires_in` has
 *   passed, the next caller starts a renewal in the background and is served the still-valid token; a caller
 *   with no valid token waits for one;
 * - one request at a time: every caller that needs a token while one is being fetched shares that fetch;
 * - a token the venue refused (401) is forgotten, so the next caller fetches a fresh one (the transport
 *   retries its call once with it);
 * - a failed background renewal is logged and not tried again for `retryMs`, the old token serving until it
 *   expires; a token without `expires_in` is kept until the venue refuses it.
 *
 * Time is the injected clock: a token's lifetime counts from the moment its request was sent. Plain HTTP is
 * allowed only to a loopback token endpoint (the local sandbox); anything else must be HTTPS. Neither the
 * secret nor a token ever reaches a log line or an error.
 */
import * as oauth from 'oauth4webapi';
import type { Logger } from 'pino';
import { DltError } from '../../core/errors.ts';
import { silentLogger } from '../../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../telemetry/metrics.ts';
import type { Clock } from '../../core/clock.ts';
import { systemClock } from '../../core/system-clock.ts';
import type { AccessTokenSource } from './access-token.ts';

export interface ClientCredentialsOptions {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes to ask for; none by default. */
  readonly scope?: string;
  /** Client authentication at the token endpoint: HTTP Basic (default; every server must accept it) or the form body. */
  readonly clientAuth?: 'basic' | 'post';
  /** Per token request; default 10 s. */
  readonly timeoutMs?: number;
  /** Share of a token's lifetime after which it is renewed; default 0.8. */
  readonly renewAt?: number;
  /** Least time between two background renewal attempts after a failure; default 5 s. */
  readonly retryMs?: number;
  readonly clock?: Clock;
  readonly fetch?: typeof globalThis.fetch;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
}

interface Held {
  readonly value: string;
  /** Clock ms from which the token is renewed ahead of expiry. */
  readonly renewAt: number;
  /** Clock ms at which the token is no longer sent. */
  readonly expiresAt: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `http:` only to this machine; the token endpoint otherwise must be `https:`. */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && (LOOPBACK_HOSTS.has(url.hostname) || url.hostname.startsWith('127.'));
}

/** A string field of an error body, cut short; undefined for anything else. */
function shortText(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, 200) : undefined;
}

/** The token URL as it may appear in a log: no user info, no query. */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export class ClientCredentialsTokens implements AccessTokenSource {
  readonly kind = 'client-credentials';
  readonly #url: URL;
  readonly #as: oauth.AuthorizationServer;
  readonly #client: oauth.Client;
  readonly #auth: oauth.ClientAuth;
  readonly #scope: string | undefined;
  readonly #timeoutMs: number;
  readonly #renewShare: number;
  readonly #retryMs: number;
  readonly #clock: Clock;
  readonly #fetch: typeof globalThis.fetch;
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  #held: Held | undefined;
  #inFlight: Promise<string> | undefined;
  #quietUntil = Number.NEGATIVE_INFINITY;

  constructor(options: ClientCredentialsOptions) {
    let url: URL;
    try {
      url = new URL(options.tokenUrl);
    } catch {
      throw new DltError('E_CONFIG_INVALID', 'venue.oauth.tokenUrl is not a URL', {
        details: { where: 'venue.oauth.tokenUrl' },
      });
    }
    if (url.protocol !== 'https:' && !isLoopbackHttp(url)) {
      throw new DltError(
        'E_CONFIG_INVALID',
        `venue.oauth.tokenUrl must be https (plain http only to this machine): ${shown(url)}`,
        { details: { where: 'venue.oauth.tokenUrl' } },
      );
    }
    this.#url = url;
    this.#as = { issuer: url.origin, token_endpoint: url.href };
    this.#client = { client_id: options.clientId };
    this.#auth =
      options.clientAuth === 'post'
        ? oauth.ClientSecretPost(options.clientSecret)
        : oauth.ClientSecretBasic(options.clientSecret);
    this.#scope = options.scope;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#renewShare = options.renewAt ?? 0.8;
    this.#retryMs = options.retryMs ?? 5_000;
    this.#clock = options.clock ?? systemClock;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#logger = options.logger ?? silentLogger();
    this.#metrics = options.metrics ?? createMetrics();
  }

  async token(signal?: AbortSignal): Promise<string> {
    const now = this.#clock.now();
    const held = this.#held;
    if (held !== undefined && now < held.expiresAt) {
      if (now >= held.renewAt && now >= this.#quietUntil && this.#inFlight === undefined) {
        this.#fetchShared().catch((e: unknown) =>
          this.#logger.warn(
            { err: e, expiresInMs: held.expiresAt - now },
            'access token renewal failed; the current token serves until it expires',
          ),
        );
      }
      return held.value;
    }
    const pending = this.#fetchShared();
    if (signal === undefined) return pending;
    signal.throwIfAborted();
    return Promise.race([
      pending,
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
      ),
    ]);
  }

  refused(token: string): boolean {
    if (this.#held?.value === token) this.#held = undefined;
    return true;
  }

  #fetchShared(): Promise<string> {
    this.#inFlight ??= this.#request().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #request(): Promise<string> {
    const sentAt = this.#clock.now();
    const controller = new AbortController();
    const timer = this.#clock.setTimer(
      () => controller.abort(new Error(`no answer within ${this.#timeoutMs} ms`)),
      this.#timeoutMs,
    );
    const parameters: Record<string, string> = this.#scope === undefined ? {} : { scope: this.#scope };
    try {
      const response = await oauth.clientCredentialsGrantRequest(this.#as, this.#client, this.#auth, parameters, {
        signal: controller.signal,
        [oauth.customFetch]: (url, init) => this.#fetch(url, init),
        [oauth.allowInsecureRequests]: isLoopbackHttp(this.#url),
      });
      const answer = await oauth.processClientCredentialsResponse(this.#as, this.#client, response);
      if (answer.token_type !== 'bearer')
        throw new DltError(
          'E_AUTH_TOKEN',
          `token endpoint ${shown(this.#url)} issued a ${answer.token_type} token; only bearer tokens are supported`,
          { details: { tokenUrl: shown(this.#url) } },
        );
      const lifetimeMs =
        typeof answer.expires_in === 'number' && answer.expires_in > 0
          ? answer.expires_in * 1000
          : Number.POSITIVE_INFINITY;
      this.#held = {
        value: answer.access_token,
        renewAt: sentAt + lifetimeMs * this.#renewShare,
        expiresAt: sentAt + lifetimeMs,
      };
      this.#metrics.venue.authTokenRequests.inc({ outcome: 'ok' });
      this.#logger.info(
        { tokenUrl: shown(this.#url), expiresInS: answer.expires_in ?? null, scope: answer.scope ?? null },
        'access token obtained',
      );
      return answer.access_token;
    } catch (e) {
      this.#quietUntil = this.#clock.now() + this.#retryMs;
      const error = await this.#failure(e, controller.signal);
      this.#metrics.venue.authTokenRequests.inc({ outcome: error.details.status === undefined ? 'failed' : 'refused' });
      throw error;
    } finally {
      timer.cancel();
    }
  }

  /** The error for a failed token request: what the endpoint said, never the secret or a token. */
  async #failure(e: unknown, signal: AbortSignal): Promise<DltError> {
    if (e instanceof DltError) return e;
    const tokenUrl = shown(this.#url);
    const refusal = (status: number, error: string | undefined, description: string | undefined) => {
      const said = error === undefined ? '' : ` ${error}${description === undefined ? '' : `: ${description}`}`;
      return new DltError(
        'E_AUTH_TOKEN',
        `token endpoint ${tokenUrl} refused the client credentials grant: HTTP ${status}${said}`,
        {
          details: {
            tokenUrl,
            status,
            ...(error === undefined ? {} : { error }),
            ...(description === undefined ? {} : { errorDescription: description }),
          },
        },
      );
    };
    if (e instanceof oauth.ResponseBodyError) return refusal(e.status, e.error, e.error_description);
    if (e instanceof oauth.WWWAuthenticateChallengeError) {
      // A challenge (Basic realm=...) comes with the RFC 6749 error body, still unread.
      const body = (await e.response.json().catch(() => undefined)) as
        { error?: unknown; error_description?: unknown } | undefined;
      return refusal(e.status, shortText(body?.error), shortText(body?.error_description));
    }
    const why = signal.aborted
      ? (signal.reason as Error).message
      : e instanceof Error
        ? e.cause instanceof Error
          ? e.cause.message
          : e.message
        : String(e);
    return new DltError('E_AUTH_TOKEN', `token endpoint ${tokenUrl} failed: ${why}`, { details: { tokenUrl } });
  }
}
