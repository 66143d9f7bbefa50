import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { fairValueSchema } from '../../../../src/core/config/fair-value-config.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { PairFairValue } from '../../../../src/engine/fair-value/pair-fair-value.ts';
import { fairValueRoutes } from '../../../../src/engine/fair-value/report.ts';
import { PolledSource } from '../../../../src/engine/fair-value/sources.ts';
import { TestClock } from '../../../support/clock.ts';

async function pairWithVerdict() {
  const clock = new TestClock();
  const feed = new PolledSource(
    { kind: 'feed', pollMs: 1000, maxAgeMs: 10_000, origin: 'https://feed.example/p' },
    async () => ({
      value: new Decimal('101.25'),
      atMs: clock.now() - 2_000,
    }),
  );
  const fv = new PairFairValue({
    pairId: 'p1',
    config: fairValueSchema.parse({ sources: [{ kind: 'feed' }], guards: { maxDeviationBps: 50 } }),
    sources: [feed],
    clock,
    logger: pino({ level: 'silent' }),
  });
  await fv.start();
  return { fv, clock };
}

describe('GET /fair-value on the telemetry port', () => {
  it("answers each pair's last verdict to a loopback caller, and nothing before the first round", async () => {
    const { fv, clock } = await pairWithVerdict();
    const routes = fairValueRoutes(() => [fv]);
    const get = { method: 'GET', path: '/fair-value', body: undefined, remoteAddress: '127.0.0.1' };
    expect(routes(get)).toEqual({ status: 200, body: { pairs: [] } });
    fv.evaluate(clock.now(), new Decimal('100'));
    expect(routes(get)).toEqual({
      status: 200,
      body: {
        pairs: [
          {
            pair: 'p1',
            atMs: clock.now(),
            fair: '101.25',
            source: 'feed',
            action: 'pull',
            widen: 1,
            othersMid: '100',
            deviationBps: '125.00',
            dispersionBps: null,
            guards: { deviation: "fair 101.25 against the others' mid 100: 125.0 bp, at most 50 (action pull)" },
            sources: [
              {
                kind: 'feed',
                origin: 'https://feed.example/p',
                value: '101.25',
                ageMs: 2_000,
                usable: true,
                reason: null,
              },
            ],
          },
        ],
      },
    });
    fv.stop();
  });

  it('refuses other callers and methods, and leaves other paths to other routes', async () => {
    const { fv } = await pairWithVerdict();
    const routes = fairValueRoutes(() => [fv]);
    expect(routes({ method: 'GET', path: '/fair-value', body: undefined, remoteAddress: '10.0.0.8' })?.status).toBe(
      403,
    );
    expect(routes({ method: 'POST', path: '/fair-value', body: {}, remoteAddress: '::1' })?.status).toBe(405);
    expect(routes({ method: 'GET', path: '/obligations', body: undefined, remoteAddress: '::1' })).toBeNull();
    fv.stop();
  });
});
