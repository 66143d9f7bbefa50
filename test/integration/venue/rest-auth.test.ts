/**
 * Participant calls authenticated with OAuth2 client credentials: a real token endpoint and a real REST venue
 * on loopback, time on a manual clock. The token is cached and renewed ahead of expiry, racing callers share
 * one token request, a 401 gives one renewal and one retry and then a clear error, and neither the client
 * secret nor a token reaches a log line or an error.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientCredentialsTokens, type ClientCredentialsOptions } from '../../../src/venue/auth/client-credentials.ts';
import { rejected, thrown } from '../../support/errors.ts';
import { FakeRestVenue } from '../../support/venue/fake-rest-venue.ts';
import { FakeTokenEndpoint } from '../../support/venue/fake-token-endpoint.ts';
import { metricValue } from '../../support/venue/metric-value.ts';
import { restHarness } from '../../support/venue/rest-harness.ts';

const CLIENT_ID = 'mm-client-7';
const CLIENT_SECRET = 'cs-Vq93-very-secret';
const WALLET = '/wallets/0xAbC/orders';

let venue: FakeRestVenue;
let idp: FakeTokenEndpoint;
beforeEach(async () => {
  [venue, idp] = await Promise.all([FakeRestVenue.start(), FakeTokenEndpoint.start()]);
  venue.route(WALLET, { body: { items: [{ externalOrderId: '7' }] } });
});
afterEach(async () => {
  await Promise.all([venue.close(), idp.close()]);
});

/** A REST client whose participant calls take their tokens from the fake endpoint, on the harness's manual clock. */
function setup(over: Partial<ClientCredentialsOptions> = {}) {
  const h = restHarness(venue, ({ clock, metrics, logger }) => ({
    accessToken: undefined,
    tokens: new ClientCredentialsTokens({
      tokenUrl: idp.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock,
      metrics,
      logger,
      ...over,
    }),
  }));
  return { ...h, call: () => h.client.getWalletOrders('0xAbC') };
}

const sent = () => venue.requestsTo(WALLET).map((r) => r.headers.authorization);

/** Yields to the event loop until the condition holds (a real HTTP answer is being processed); bounded. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (await condition()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('condition never held');
}

describe('client-credentials tokens', () => {
  it('asks with HTTP Basic client authentication, grant_type and scope, and reuses the token until 80 % of its lifetime', async () => {
    const { call, clock } = setup({ scope: 'orders:read' });
    venue.requireBearer((t) => idp.issued.includes(t));
    await call();
    clock.advance(47_999);
    await call();
    expect(idp.requests).toHaveLength(1);
    expect(idp.requests[0]?.form).toEqual({ grant_type: 'client_credentials', scope: 'orders:read' });
    // RFC 6749 section 2.3.1: id and secret form-urlencoded, then HTTP Basic.
    const basic = /^Basic (.+)$/.exec(idp.requests[0]?.headers.authorization ?? '')?.[1] ?? '';
    const [id, secret] = Buffer.from(basic, 'base64')
      .toString('utf8')
      .split(':')
      .map((x) => decodeURIComponent(x.replace(/\+/g, ' ')));
    expect([id, secret]).toEqual([CLIENT_ID, CLIENT_SECRET]);
    expect(sent()).toEqual(['Bearer tok-1', 'Bearer tok-1']);
  });

  it('can authenticate in the form body instead (client_secret_post)', async () => {
    const { call } = setup({ clientAuth: 'post' });
    await call();
    expect(idp.requests[0]?.headers.authorization).toBeUndefined();
    expect(idp.requests[0]?.form).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
  });

  it('renews ahead of expiry in the background: the caller is not held up, the next one gets the new token', async () => {
    const { call, clock, metrics } = setup();
    await call();
    clock.advance(48_000);
    idp.hold();
    await call();
    expect(sent()).toEqual(['Bearer tok-1', 'Bearer tok-1']);
    expect(idp.requests).toHaveLength(2);
    idp.release();
    await until(
      async () => (await metricValue(metrics, 'dltmm_venue_auth_token_requests_total', { outcome: 'ok' })) === 2,
    );
    await call();
    expect(sent().at(-1)).toBe('Bearer tok-2');
    expect(await metricValue(metrics, 'dltmm_venue_auth_token_requests_total', { outcome: 'ok' })).toBe(2);
  });

  it('concurrent requests racing an expired token make one token request', async () => {
    const { call, clock } = setup();
    await call();
    clock.advance(60_000);
    idp.hold();
    const calls = Array.from({ length: 12 }, () => call());
    // The token request of the racing calls reaches the identity provider, which holds its answer.
    await until(async () => idp.requests.length >= 2);
    idp.release();
    await Promise.all(calls);
    expect(idp.requests).toHaveLength(2);
    expect(sent().slice(1)).toEqual(Array.from({ length: 12 }, () => 'Bearer tok-2'));
  });

  it('a 401 gives one renewal and one retry, and the call succeeds with the fresh token', async () => {
    const { call, metrics } = setup();
    venue.requireBearer((t) => t !== 'tok-1' && idp.issued.includes(t));
    expect((await call()).map((o) => o.externalOrderId)).toEqual([7n]);
    expect(sent()).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    expect(idp.requests).toHaveLength(2);
    expect(
      await metricValue(metrics, 'dltmm_venue_rest_retries_total', {
        endpoint: '/wallets/{wallet_address}/orders',
        reason: '401',
      }),
    ).toBe(1);
  });

  it('concurrent calls refused with the same token share one renewal', async () => {
    const { call } = setup();
    await call();
    venue.requireBearer((t) => t !== 'tok-1' && idp.issued.includes(t));
    await Promise.all(Array.from({ length: 6 }, () => call()));
    expect(idp.requests).toHaveLength(2);
    expect(sent().filter((h) => h === 'Bearer tok-2')).toHaveLength(6);
  });

  it('a second 401 after the renewal is a clear E_REST_AUTH error, and no secret or token is in a log line or the error', async () => {
    const { call, lines } = setup();
    venue.requireBearer(() => false);
    const e = await rejected(call());
    expect(e.code).toBe('E_REST_AUTH');
    expect(e.message).toContain('HTTP 401: UNAUTHORIZED');
    expect(e.message).toContain('a freshly issued access token was refused too');
    expect(sent()).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    expect(idp.requests).toHaveLength(2);
    const text = lines.join('') + JSON.stringify(e.toJSON()) + e.message + String(e.stack);
    for (const secret of [CLIENT_SECRET, 'tok-1', 'tok-2']) expect(text).not.toContain(secret);
  });

  it("refused client credentials are E_AUTH_TOKEN with the endpoint's error; nothing reaches the venue", async () => {
    idp.fail({
      status: 401,
      body: { error: 'invalid_client', error_description: 'Client authentication failed' },
      headers: { 'www-authenticate': 'Basic realm="venue"' },
    });
    const { call, lines, metrics } = setup();
    const e = await rejected(call());
    expect(e.code).toBe('E_AUTH_TOKEN');
    expect(e.message).toContain(
      'refused the client credentials grant: HTTP 401 invalid_client: Client authentication failed',
    );
    expect(venue.requestsTo(WALLET)).toEqual([]);
    expect(await metricValue(metrics, 'dltmm_venue_auth_token_requests_total', { outcome: 'refused' })).toBe(1);
    expect(lines.join('') + JSON.stringify(e.toJSON())).not.toContain(CLIENT_SECRET);
    // The next call asks again (a caller with no valid token always waits for one).
    await call();
    expect(idp.requests).toHaveLength(2);
  });

  it('a failed renewal keeps serving the valid token and is not tried again for retryMs', async () => {
    const { call, clock, metrics } = setup({ retryMs: 5_000 });
    await call();
    idp.fail({ status: 503, body: { error: 'temporarily_unavailable' } });
    clock.advance(48_000);
    await call();
    await until(
      async () => (await metricValue(metrics, 'dltmm_venue_auth_token_requests_total', { outcome: 'failed' })) === 1,
    );
    clock.advance(4_999);
    await call();
    expect(idp.requests).toHaveLength(2);
    clock.advance(1);
    await call();
    expect(idp.requests).toHaveLength(3);
    expect(sent()).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1']);
  });

  it('a token without expires_in is kept until the venue refuses it', async () => {
    idp.expiresIn = undefined;
    const { call, clock } = setup();
    await call();
    clock.advance(86_400_000);
    await call();
    expect(idp.requests).toHaveLength(1);
  });

  it('refuses a plain-http token endpoint that is not on this machine', () => {
    const e = thrown(
      () =>
        new ClientCredentialsTokens({ tokenUrl: 'http://idp.example/oauth2/token', clientId: 'a', clientSecret: 'b' }),
    );
    expect(e.code).toBe('E_CONFIG_INVALID');
    expect(e.message).toBe(
      'venue.oauth.tokenUrl must be https (plain http only to this machine): http://idp.example/oauth2/token',
    );
  });
});
