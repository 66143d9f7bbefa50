import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonFeed, timeOf } from '../../../../src/engine/fair-value/json-feed.ts';
import { TestClock } from '../../../support/clock.ts';

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A loopback server answering every request with `answer` (status and body), recording the headers. */
async function serve(answer: () => { status: number; body: string } | null) {
  const seen: Array<Record<string, unknown>> = [];
  const { promise: requested, resolve: arrived } = Promise.withResolvers<void>();
  const server = createServer((req, res) => {
    seen.push(req.headers);
    arrived();
    const a = answer();
    if (a === null) return; // never answers
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(a.body);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://user:pw@127.0.0.1:${port}/price/DE000A1?key=s3cret`, seen, requested };
}

const feed = (url: string, clock = new TestClock(), headers: Record<string, string> = {}) =>
  new JsonFeed({ url, pricePath: 'data.price', timePath: 'data.at', timeoutMs: 2_000, headers, clock });

describe('a JSON price feed', () => {
  it('reads the number at its path exactly, and its time in seconds, milliseconds or ISO text', async () => {
    let body = JSON.stringify({ data: { price: '101.123456789012345678901', at: 1_772_442_000 } });
    const s = await serve(() => ({ status: 200, body }));
    const f = feed(s.url, new TestClock(), { authorization: 'Bearer t0ken' });
    const a = await f.read();
    expect(a.value.toFixed()).toBe('101.123456789012345678901');
    expect(a.atMs).toBe(1_772_442_000_000);
    expect(s.seen[0]?.authorization).toBe('Bearer t0ken');
    expect(await feed(s.url).read()).toMatchObject({ atMs: 1_772_442_000_000 });
    expect(s.seen[1]?.authorization).toBe(`Basic ${Buffer.from('user:pw').toString('base64')}`);
    body = JSON.stringify({ data: { price: 99.5, at: 1_772_442_000_123 } });
    expect(await f.read()).toMatchObject({ atMs: 1_772_442_000_123 });
    expect((await f.read()).value.toFixed()).toBe('99.5');
    expect(timeOf('2026-03-02T09:00:00.250Z')).toBe(Date.UTC(2026, 2, 2, 9, 0, 0, 250));
    expect(timeOf('soon')).toBeNull();
  });

  it('names what is wrong, with the endpoint but never its credentials or query', async () => {
    let answer = { status: 503, body: '{}' };
    const s = await serve(() => answer);
    const f = feed(s.url);
    const fails = async () =>
      (
        await f.read().then(
          () => null,
          (e: Error) => e,
        )
      )?.message;
    expect(await fails()).toMatch(/^feed http:\/\/127\.0\.0\.1:\d+\/price\/DE000A1: HTTP 503$/);
    answer = { status: 200, body: 'not json' };
    expect(await fails()).toContain('the answer is not JSON');
    answer = { status: 200, body: JSON.stringify({ data: { price: 'n/a', at: 1 } }) };
    expect(await fails()).toContain('no number at data.price');
    answer = { status: 200, body: JSON.stringify({ data: { price: '1' } }) };
    expect(await fails()).toContain('no time at data.at');
    for (const m of [await fails()]) expect(m).not.toMatch(/s3cret|pw/);
  });

  it('gives up on a feed that does not answer within its timeout, on the injected clock', async () => {
    const s = await serve(() => null);
    const clock = new TestClock();
    const pending = feed(s.url, clock)
      .read()
      .then(
        () => null,
        (e: Error) => e.message,
      );
    await s.requested;
    clock.advance(2_000);
    expect(await pending).toContain('no answer within 2000 ms');
  });
});
