/**
 * The sandbox's token endpoint (client-credentials grant) and the participant endpoints' bearer check: tokens
 * granted for `lifetimeSeconds` of an injected wall clock, accepted until then and refused after with a 401
 * AppError, and RFC 6749 error bodies for wrong clients, grants and requests.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/sandbox/api/http-error.ts';
import { routeApi } from '../../../../src/sandbox/api/rest-routes.ts';
import { TokenIssuer } from '../../../../src/sandbox/api/token-endpoint.ts';
import { firstPairState } from '../../../support/sandbox/venue-state.ts';

const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function issuer() {
  let now = Date.UTC(2026, 2, 2, 9, 0, 0);
  const tokens = new TokenIssuer({
    clientId: 'mm client',
    clientSecret: 's3cret-s3cret',
    lifetimeSeconds: 60,
    now: () => now,
  });
  return { tokens, advance: (ms: number) => (now += ms) };
}

describe('token endpoint', () => {
  it('grants a bearer token for 60 s to a client authenticated with HTTP Basic, and echoes the scope', () => {
    const { tokens, advance } = issuer();
    // A space form-encodes as `+` (RFC 6749 appendix B), as oauth4webapi writes it.
    const answer = tokens.grant(
      `Basic ${Buffer.from('mm+client:s3cret-s3cret').toString('base64')}`,
      FORM,
      'grant_type=client_credentials&scope=orders%3Aread',
    );
    expect(answer).toMatchObject({
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: { token_type: 'Bearer', expires_in: 60, scope: 'orders:read' },
    });
    const token = answer.body.access_token as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.check(token)).toBe('valid');
    advance(59_999);
    expect(tokens.check(token)).toBe('valid');
    advance(1);
    expect(tokens.check(token)).toBe('expired');
    expect(tokens.check('never-issued')).toBe('unknown');
    expect(tokens.issued).toBe(1);
  });

  it('accepts the credentials in the form body too, but not both ways at once', () => {
    const { tokens } = issuer();
    expect(
      tokens.grant(undefined, FORM, 'grant_type=client_credentials&client_id=mm+client&client_secret=s3cret-s3cret')
        .status,
    ).toBe(200);
    expect(
      tokens.grant(
        basic('mm client', 's3cret-s3cret'),
        FORM,
        'grant_type=client_credentials&client_secret=s3cret-s3cret',
      ).body,
    ).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a wrong client, another grant type and a JSON body with RFC 6749 errors', () => {
    const { tokens } = issuer();
    expect(tokens.grant(basic('mm client', 'wrong'), FORM, 'grant_type=client_credentials')).toMatchObject({
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="dlt-mm sandbox"' },
      body: { error: 'invalid_client' },
    });
    expect(tokens.grant(undefined, FORM, 'grant_type=client_credentials')).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(tokens.grant(basic('mm client', 's3cret-s3cret'), FORM, 'grant_type=password')).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
    expect(tokens.grant(basic('mm client', 's3cret-s3cret'), 'application/json', '{}')).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    expect(tokens.refused).toBe(4);
  });
});

describe('bearer check of the participant endpoints', () => {
  const { state } = firstPairState('CONTINUOUS_TRADING', 'START_OF_TRADING_DAY');
  const { tokens, advance } = issuer();
  const granted = tokens.grant(basic('mm client', 's3cret-s3cret'), FORM, 'grant_type=client_credentials').body
    .access_token as string;
  const ctx = { state, accessToken: 'fixed-token-1', tokens, nowMs: () => 0 };
  const call = (authorization?: string) => {
    try {
      return routeApi(
        {
          method: 'GET',
          path: `/participants/${state.participantId}/orders`,
          params: new URLSearchParams(),
          authorization,
        },
        ctx,
      );
    } catch (e) {
      if (e instanceof HttpError)
        return { status: e.status, message: e.message, challenge: e.headers['www-authenticate'] };
      throw e;
    }
  };

  it('accepts a granted token until it expires, then answers 401 saying so; the fixed token always', () => {
    expect(call(`Bearer ${granted}`)).toMatchObject({ items: [] });
    expect(call('Bearer fixed-token-1')).toMatchObject({ items: [] });
    advance(60_000);
    expect(call(`Bearer ${granted}`)).toEqual({
      status: 401,
      message: 'The access token has expired',
      challenge: 'Bearer error="invalid_token", error_description="The access token expired"',
    });
    expect(call('Bearer fixed-token-1')).toMatchObject({ items: [] });
    expect(call('Bearer made-up')).toMatchObject({ status: 401, message: 'The bearer token is not valid' });
    expect(call()).toEqual({ status: 401, message: 'Full authentication is required', challenge: 'Bearer' });
  });
});
