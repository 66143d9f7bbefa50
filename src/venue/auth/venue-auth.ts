/**
 * How the bot authenticates at the venue's participant endpoints, as configured: a fixed token, or OAuth2
 * client credentials. Secrets are read through the caller's reader (environment or file, never inline), and
 * every secret value is listed for the logger to scrub.
 */
import type { BotConfig } from '../../core/config/bot-config.ts';
import type { SecretRef } from '../../core/config/common.ts';
import type { Logger } from 'pino';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { Clock } from '../../core/clock.ts';
import { staticToken, type AccessTokenSource } from './access-token.ts';
import { ClientCredentialsTokens } from './client-credentials.ts';

export type VenueAuth =
  | { readonly kind: 'static'; readonly token: string }
  | {
      readonly kind: 'client-credentials';
      readonly tokenUrl: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly scope?: string;
      readonly clientAuth?: 'basic' | 'post';
    };

type VenueSection = NonNullable<BotConfig['venue']>;

/** The configured authentication with its secrets read; undefined when none is configured. */
export function venueAuthOf(
  venue: VenueSection,
  read: (ref: SecretRef, where: string) => string,
): VenueAuth | undefined {
  const o = venue.oauth;
  if (o !== undefined) {
    return {
      kind: 'client-credentials',
      tokenUrl: o.tokenUrl,
      clientId: read(o.clientId, 'venue.oauth.clientId'),
      clientSecret: read(o.clientSecret, 'venue.oauth.clientSecret'),
      clientAuth: o.clientAuth,
      ...(o.scope === undefined ? {} : { scope: o.scope }),
    };
  }
  return venue.accessToken === undefined
    ? undefined
    : { kind: 'static', token: read(venue.accessToken, 'venue.accessToken') };
}

/** The secret values of an authentication, for the logger's scrubbing. */
export function authSecrets(auth: VenueAuth | undefined): string[] {
  if (auth === undefined) return [];
  return auth.kind === 'static' ? [auth.token] : [auth.clientSecret];
}

export interface TokenSourceDependencies {
  readonly clock?: Clock;
  readonly fetch?: typeof globalThis.fetch;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly timeoutMs?: number;
}

export function tokenSourceOf(
  auth: VenueAuth | undefined,
  deps: TokenSourceDependencies = {},
): AccessTokenSource | undefined {
  if (auth === undefined) return undefined;
  if (auth.kind === 'static') return staticToken(auth.token);
  return new ClientCredentialsTokens({
    tokenUrl: auth.tokenUrl,
    clientId: auth.clientId,
    clientSecret: auth.clientSecret,
    ...(auth.scope === undefined ? {} : { scope: auth.scope }),
    ...(auth.clientAuth === undefined ? {} : { clientAuth: auth.clientAuth }),
    ...(deps.clock === undefined ? {} : { clock: deps.clock }),
    ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
    ...(deps.logger === undefined ? {} : { logger: deps.logger }),
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }),
  });
}
