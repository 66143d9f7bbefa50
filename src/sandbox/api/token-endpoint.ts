/**
 * The sandbox's OAuth 2.0 token endpoint (`POST /oauth2/token`): the client-credentials grant of RFC 6749
 * section 4.4, the way the venue's identity provider serves the SDK. The client authenticates with HTTP Basic
 * (id and secret form-urlencoded, RFC 6749 section 2.3.1) or in the form body, never both. A granted token is
 * random, lives `lifetimeSeconds` of wall time (the sandbox clock may be frozen or racing ahead; tokens follow
 * the real one), and is answered as `{access_token, token_type: 'Bearer', expires_in, scope?}` with
 * `Cache-Control: no-store`. Refusals are RFC 6749 section 5.2 error bodies: `invalid_client` (401, with
 * `WWW-Authenticate` when Basic was used), `invalid_request`, `unsupported_grant_type` (400). Any scope asked
 * for is granted and echoed (the venue's scopes are not published).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface TokenIssuerOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly lifetimeSeconds: number;
  /** Wall clock, epoch ms; default Date.now. */
  readonly now?: () => number;
}

export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string>>;
}

export type TokenCheck = 'valid' | 'expired' | 'unknown';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function formDecode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export class TokenIssuer {
  readonly #options: TokenIssuerOptions;
  readonly #now: () => number;
  readonly #tokens = new Map<string, number>();
  /** Tokens granted since start, for the status endpoint and tests. */
  issued = 0;
  /** Token requests refused. */
  refused = 0;

  constructor(options: TokenIssuerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get lifetimeSeconds(): number {
    return this.#options.lifetimeSeconds;
  }

  /** Answers one token request: its Authorization header, Content-Type and body text. */
  grant(authorization: string | undefined, contentType: string | undefined, bodyText: string): TokenAnswer {
    if (!(contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      return this.#error(400, 'invalid_request', 'the request body must be application/x-www-form-urlencoded');
    }
    const form = new URLSearchParams(bodyText);
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
    let id: string | undefined;
    let secret: string | undefined;
    if (basic !== null) {
      if (form.has('client_secret'))
        return this.#error(400, 'invalid_request', 'use one client authentication method, not two');
      const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return this.#error(401, 'invalid_client', 'malformed Basic credentials', true);
      try {
        id = formDecode(decoded.slice(0, colon));
        secret = formDecode(decoded.slice(colon + 1));
      } catch {
        return this.#error(401, 'invalid_client', 'malformed Basic credentials', true);
      }
    } else {
      id = form.get('client_id') ?? undefined;
      secret = form.get('client_secret') ?? undefined;
    }
    if (id === undefined || secret === undefined)
      return this.#error(401, 'invalid_client', 'client authentication is required', basic !== null);
    if (!same(id, this.#options.clientId) || !same(secret, this.#options.clientSecret))
      return this.#error(401, 'invalid_client', 'Client authentication failed', basic !== null);
    const grantType = form.get('grant_type');
    if (grantType !== 'client_credentials')
      return this.#error(
        400,
        'unsupported_grant_type',
        `grant_type ${JSON.stringify(grantType)} is not supported; use client_credentials`,
      );
    const token = randomBytes(32).toString('base64url');
    const now = this.#now();
    this.#prune(now);
    this.#tokens.set(token, now + this.#options.lifetimeSeconds * 1000);
    this.issued += 1;
    const scope = form.get('scope');
    return {
      status: 200,
      headers: NO_STORE,
      body: {
        access_token: token,
        token_type: 'Bearer',
        expires_in: this.#options.lifetimeSeconds,
        ...(scope === null || scope === '' ? {} : { scope }),
      },
    };
  }

  /** Fault: every granted token is revoked (answers `unknown` from now on); returns how many were live. */
  revokeAll(): number {
    const now = this.#now();
    const live = [...this.#tokens.values()].filter((at) => at > now).length;
    this.#tokens.clear();
    return live;
  }

  check(token: string): TokenCheck {
    const expiresAt = this.#tokens.get(token);
    if (expiresAt === undefined) return 'unknown';
    return this.#now() < expiresAt ? 'valid' : 'expired';
  }

  #error(status: number, error: string, description: string, basicChallenge = false): TokenAnswer {
    this.refused += 1;
    return {
      status,
      headers: { ...NO_STORE, ...(basicChallenge ? { 'www-authenticate': 'Basic realm="dlt-mm sandbox"' } : {}) },
      body: { error, error_description: description },
    };
  }

  /** Forgets tokens that expired more than a minute ago (they answer `unknown` after that). */
  #prune(now: number): void {
    for (const [t, at] of this.#tokens) if (at < now - 60_000) this.#tokens.delete(t);
  }
}
