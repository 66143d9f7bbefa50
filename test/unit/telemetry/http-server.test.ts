import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/telemetry/metrics.ts';
import { startTelemetryServer, type TelemetryServer } from '../../../src/telemetry/http-server.ts';

const servers: TelemetryServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(readiness?: () => boolean | Promise<boolean> | { ready: boolean; reason?: string }) {
  const metrics = createMetrics();
  const server = await startTelemetryServer({
    metrics,
    host: '127.0.0.1',
    port: 0,
    ...(readiness ? { readiness } : {}),
  });
  servers.push(server);
  return { metrics, server };
}

describe('telemetry HTTP server', () => {
  it("serves this instance's metrics in Prometheus text format", async () => {
    const { metrics, server } = await start();
    metrics.venue.wsReconnects.inc(3);
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('dltmm_venue_ws_reconnects_total 3');
  });

  it('answers /healthz always and /readyz from the callback, 503 when not ready or when the check throws', async () => {
    let ready: boolean | Error = false;
    const { server } = await start(() => {
      if (ready instanceof Error) throw ready;
      return ready ? true : { ready: false, reason: 'market BOND26EURe stale' };
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ status: 'not ready', reason: 'market BOND26EURe stale' });
    ready = true;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    ready = new Error('engine gone');
    const broken = await fetch(`${server.url}/readyz`);
    expect(broken.status).toBe(503);
    expect(((await broken.json()) as { reason: string }).reason).toContain('engine gone');
    expect((await fetch(`${server.url}/other`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('stops cleanly even with a keep-alive connection open, and frees the port', async () => {
    const { server } = await start();
    await (await fetch(`${server.url}/healthz`, { keepalive: true })).text();
    await server.close();
    servers.length = 0;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow(/fetch failed/);
  });
});

describe('further routes', () => {
  it('hand JSON bodies and the caller address to the routes, and pass on what they do not answer', async () => {
    const seen: unknown[] = [];
    const metrics = createMetrics();
    const server = await startTelemetryServer({
      metrics,
      host: '127.0.0.1',
      port: 0,
      routes: (req) => {
        if (!req.path.startsWith('/obligations')) return null;
        seen.push(req);
        return { status: 201, body: { got: req.body, big: 2n ** 70n } };
      },
    });
    servers.push(server);
    const res = await fetch(`${server.url}/obligations/windows`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'feed down' }),
    });
    expect([res.status, await res.json()]).toEqual([
      201,
      { got: { reason: 'feed down' }, big: '1180591620717411303424' },
    ]);
    expect(seen).toEqual([
      { method: 'POST', path: '/obligations/windows', body: { reason: 'feed down' }, remoteAddress: '127.0.0.1' },
    ]);
    expect((await fetch(`${server.url}/obligations`, { method: 'POST', body: '{not json' })).status).toBe(400);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
