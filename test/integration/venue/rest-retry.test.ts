import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/sandbox/net.ts';
import { appError, FakeRestVenue, type Reply } from '../../support/venue/fake-rest-venue.ts';
import { randomSequence } from '../../support/clock.ts';
import { metricValue } from '../../support/venue/metric-value.ts';
import { restHarness } from '../../support/venue/rest-harness.ts';
import { rejected } from '../../support/errors.ts';

let venue: FakeRestVenue;
beforeEach(async () => {
  venue = await FakeRestVenue.start();
});
afterEach(async () => {
  await venue.close();
});

const INFO = { lastPrice: '101.2', tradingStatus: 'CONTINUOUS_TRADING' };
const PATH = '/tradingpairs/p1/tradeinfo';
const ENDPOINT = '/tradingpairs/{id}/tradeinfo';
const tooMany: Reply = appError(429, 'TOO_MANY_REQUESTS', 'rate limit exceeded');

describe('REST backoff on a 429 storm and 5xx', () => {
  it('rides out a storm of 429s with exponential backoff and full jitter, then succeeds', async () => {
    venue.queue(PATH, tooMany, tooMany, tooMany, tooMany, tooMany).route(PATH, { body: INFO });
    const random = randomSequence(0.5, 0.25, 0.9, 0.1, 0.99);
    const { client, delays, metrics } = restHarness(venue, {
      random,
      retry: { baseMs: 100, capMs: 1_000, retries: 5 },
    });
    expect((await client.getTradeInfo('p1')).lastPrice?.toFixed()).toBe('101.2');
    // Retry n waits floor(random * min(cap, base * 2^n)): ceilings 100, 200, 400, 800, 1000.
    expect(delays).toEqual([50, 50, 360, 80, 990]);
    expect(venue.requests).toHaveLength(6);
    expect(await metricValue(metrics, 'dltmm_venue_rest_retries_total', { endpoint: ENDPOINT, reason: '429' })).toBe(5);
    expect(await metricValue(metrics, 'dltmm_venue_rest_requests_total', { endpoint: ENDPOINT, status: '429' })).toBe(
      5,
    );
    expect(await metricValue(metrics, 'dltmm_venue_rest_requests_total', { endpoint: ENDPOINT, status: '200' })).toBe(
      1,
    );
  });

  it('waits at least Retry-After: delay-seconds on 429, an HTTP date on 503 (against the injected clock)', async () => {
    const { client, delays, clock } = restHarness(venue, {
      random: () => 0,
      retry: { baseMs: 100, capMs: 1_000, retries: 3 },
    });
    const inTwentySeconds = new Date(clock.now() + 20_000).toUTCString();
    venue
      .queue(
        PATH,
        { ...tooMany, headers: { 'retry-after': '3' } },
        { ...appError(503, 'UNAVAILABLE', 'maintenance'), headers: { 'retry-after': inTwentySeconds } },
      )
      .route(PATH, { body: INFO });
    await client.getTradeInfo('p1');
    expect(delays).toEqual([3_000, 20_000]);
  });

  it('gives up with E_REST_UNAVAILABLE when the retry budget is spent, carrying the AppError', async () => {
    venue.route(PATH, tooMany);
    const { client, delays, metrics } = restHarness(venue, { retry: { baseMs: 100, capMs: 1_000, retries: 3 } });
    const e = await rejected(client.getTradeInfo('p1'));
    expect(e.code).toBe('E_REST_UNAVAILABLE');
    expect(e.retryable).toBe(true);
    expect(e.details).toMatchObject({ status: 429, attempts: 4, appError: { code: 'TOO_MANY_REQUESTS' } });
    expect(venue.requests).toHaveLength(4);
    expect(delays).toHaveLength(3);
    expect(
      await metricValue(metrics, 'dltmm_venue_rest_errors_total', { endpoint: ENDPOINT, code: 'E_REST_UNAVAILABLE' }),
    ).toBe(1);
  });

  it('a Retry-After beyond the configured maximum ends the call at once instead of blocking', async () => {
    venue.route(PATH, { ...tooMany, headers: { 'retry-after': '3600' } });
    const { client, delays } = restHarness(venue, { retry: { maxRetryAfterMs: 60_000 } });
    const e = await rejected(client.getTradeInfo('p1'));
    expect(e.details).toMatchObject({ retryAfterMs: 3_600_000, attempts: 1 });
    expect(delays).toEqual([]);
  });

  it('retries 5xx but never another 4xx', async () => {
    venue
      .queue(PATH, appError(500, 'INTERNAL', 'boom'), appError(502, 'BAD_GATEWAY', 'gw'))
      .route(PATH, { body: INFO });
    venue.route('/tradingpairs/p2/tradeinfo', appError(400, 'BAD_REQUEST', 'no'));
    const { client } = restHarness(venue);
    await client.getTradeInfo('p1');
    expect(venue.requestsTo(PATH)).toHaveLength(3);
    const e = await rejected(client.getTradeInfo('p2'));
    expect(e.code).toBe('E_REST_REQUEST');
    expect(venue.requestsTo('/tradingpairs/p2/tradeinfo')).toHaveLength(1);
  });
});

const said = (lines: readonly string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('what the log says when REST calls fail', () => {
  it('calls that spend their retries on 5xx are counted in one incident, not said one by one, without a stack', async () => {
    venue.route(PATH, appError(500, 'INTERNAL', 'boom'));
    venue.route('/tradingpairs/p2/tradeinfo', appError(400, 'BAD_REQUEST', 'no'));
    const { client, lines } = restHarness(venue, { retry: { baseMs: 100, capMs: 1_000, retries: 1 } });
    for (let i = 0; i < 3; i++) await rejected(client.getTradeInfo('p1'));
    const warnings = said(lines).filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.msg)).toEqual(['venue REST failing']);
    // Another answer than a transient one is said, by code and reason.
    expect((await rejected(client.getTradeInfo('p2'))).code).toBe('E_REST_REQUEST');
    const refusal = said(lines).filter((l) => l.msg === 'venue REST call failed');
    expect(refusal).toMatchObject([{ level: 'warn', endpoint: ENDPOINT, code: 'E_REST_REQUEST' }]);
    expect(lines.filter((l) => l.includes('"stack"'))).toEqual([]);
  });
});

describe('REST timeouts and transport failures', () => {
  it('aborts an attempt after the timeout (injected clock), retries, and ends with E_REST_TIMEOUT', async () => {
    venue.route(PATH, { hang: true });
    const { client, clock, delays } = restHarness(venue, { timeoutMs: 2_000, retry: { retries: 1 } });
    const call = rejected(client.getTradeInfo('p1'));
    await venue.waitForRequests(1);
    expect(clock.pendingDelays()).toEqual([2_000]);
    clock.advance(2_000);
    await venue.waitForRequests(2);
    clock.advance(2_000);
    const e = await call;
    expect(e.code).toBe('E_REST_TIMEOUT');
    expect(e.details).toMatchObject({ attempts: 2, timeoutMs: 2_000 });
    expect(delays).toHaveLength(1);
  });

  it('a refused connection is retried with backoff and ends as E_REST_TRANSPORT', async () => {
    const port = await freePort();
    const { client, delays, metrics } = restHarness(venue, {
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      retry: { baseMs: 100, capMs: 1_000, retries: 2 },
    });
    const e = await rejected(client.getTradeInfo('p1'));
    expect(e.code).toBe('E_REST_TRANSPORT');
    expect(delays).toEqual([50, 100]);
    expect(
      await metricValue(metrics, 'dltmm_venue_rest_retries_total', { endpoint: ENDPOINT, reason: 'network' }),
    ).toBe(2);
  });

  it('the caller can abort a call while it waits to retry', async () => {
    venue.route(PATH, tooMany);
    const controller = new AbortController();
    const { client } = restHarness(venue, ({ clock }) => ({
      clock: clock.withSleep((_ms, signal) => {
        controller.abort(new Error('shutting down'));
        return Promise.reject(signal?.reason as Error);
      }),
    }));
    await expect(client.getTradeInfo('p1', { signal: controller.signal })).rejects.toThrow('shutting down');
    expect(venue.requests).toHaveLength(1);
  });
});
