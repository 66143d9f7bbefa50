/**
 * The transport soak: the whole bot (the `dlt-mm run` composition) on an embedded sandbox whose tokens expire
 * every `tokenLifetimeSeconds` and whose WebSocket sends keep-alives every `keepAliveMs`, trading while the
 * simulated market runs. Beside the bot's own calls, participant endpoints are called through the bot's REST
 * client (the same token source) every `participantCallMs`, as an operator's tools would. At the end it reads
 * the bot's metrics and the sandbox's counters: how long each pair's book was fed by the WebSocket rather
 * than the REST fallback, every 401 the venue answered and every participant call left failing, the tokens
 * issued and the keep-alives seen.
 *
 *   npm run soak:transports -- [--minutes 5] [--token-lifetime 60] [--keep-alive-ms 5000] [--connection-timeout-ms 15000]
 *
 * The short form runs in the test suite (test/e2e/transports.test.ts); this file's command line is the long
 * measurement. It touches only loopback ports and a temporary directory.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { composeRun, type RunParts } from '../../src/cli/bootstrap/run.ts';
import type { Metrics } from '../../src/telemetry/metrics.ts';

const LADDER = fileURLToPath(new URL('../../strategies/ladder.yaml', import.meta.url));

export interface SoakOptions {
  readonly tokenLifetimeSeconds: number;
  readonly keepAliveMs: number;
  readonly connectionTimeoutMs: number;
  /** How often participant endpoints are called beside the bot's own calls. */
  readonly participantCallMs: number;
  /** Revoke every token once, this long into the run (a 401 then makes the bot renew and retry). */
  readonly revokeAtMs?: number;
  /** Ends the run: a duration, or a condition checked every second (with a deadline). */
  readonly stop:
    { readonly afterMs: number } | { readonly when: (p: SoakProgress) => boolean; readonly deadlineMs: number };
  /** Progress lines (default none). */
  readonly log?: (line: string) => void;
}

export interface SoakProgress {
  readonly elapsedMs: number;
  readonly tokensIssued: number;
  readonly participantCalls: { readonly ok: number; readonly failed: number };
}

export interface PairShare {
  readonly market: string;
  readonly ws: number;
  readonly rest: number;
  readonly none: number;
  /** `ws / (ws + rest + none)`, the metric `dltmm_venue_book_ws_share`. */
  readonly wsShare: number;
}

export interface SoakReport {
  readonly durationS: number;
  readonly pairs: PairShare[];
  /** HTTP 401 answers the venue gave the bot, by endpoint (each was retried once with a fresh token). */
  readonly unauthorized: Record<string, number>;
  /** Participant calls that ended in an error, by code (E_REST_AUTH is a 401 after the renewal). */
  readonly failedCalls: Record<string, number>;
  readonly participantCalls: { readonly ok: number; readonly failed: number };
  readonly tokens: {
    readonly requested: Record<string, number>;
    readonly issuedBySandbox: number;
    readonly refusedBySandbox: number;
  };
  readonly websocket: {
    readonly keepAlivesSent: number;
    readonly keepAlivesReceived: number;
    readonly dataMessages: number;
    readonly reconnects: number;
    readonly keepAliveTimeouts: number;
    readonly staleTransitions: number;
  };
}

async function series(
  metrics: Metrics,
  name: string,
): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const m = metrics.registry.getSingleMetric(name);
  if (m === undefined) return [];
  return (await m.get()).values.map((v) => ({ labels: v.labels as Record<string, string | number>, value: v.value }));
}

async function sum(metrics: Metrics, name: string, match: Record<string, string> = {}): Promise<number> {
  return (await series(metrics, name))
    .filter((s) => Object.entries(match).every(([k, v]) => String(s.labels[k]) === v))
    .reduce((a, s) => a + s.value, 0);
}

export async function runTransportSoak(o: SoakOptions): Promise<SoakReport> {
  const log = o.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-soak-'));
  const configPath = join(dir, 'bot.yaml');
  writeFileSync(
    configPath,
    stringify({
      sandbox: { embedded: true, strategy: LADDER, flow: true },
      calendar: { enabled: false },
      risk: {
        maxNotional: '5000',
        maxOpenOrders: 8,
        maxOrderValue: '2000',
        dailyLossLimit: '500',
        maxDrawdown: '1000',
        staleMarketDataMs: 15_000,
      },
      engine: { tickMs: 2_000, shutdownTimeoutMs: 60_000 },
      telemetry: { metricsPort: 0, metricsHost: '127.0.0.1', logLevel: 'warn' },
    }),
  );
  const io = {
    stdout: (t: string) => log(t.trimEnd()),
    stderr: (t: string) => log(t.trimEnd()),
    readFile: (p: string) => readFileSync(p, 'utf8'),
    writeFile: (p: string, t: string) => writeFileSync(p, t),
    env: {},
    cwd: dir,
  };
  let parts: RunParts | undefined;
  let driver: NodeJS.Timeout | undefined;
  try {
    parts = await composeRun({
      configPath,
      io,
      tty: false,
      sandbox: {
        api: {
          tokenLifetimeSeconds: o.tokenLifetimeSeconds,
          wsKeepAliveMs: o.keepAliveMs,
          wsConnectionTimeoutMs: o.connectionTimeoutMs,
        },
      },
    });
    const p = parts;
    const sandbox = p.sandbox;
    if (sandbox === null) throw new Error('the soak needs the embedded sandbox');
    await p.bot.start();
    const started = performance.now();
    log(
      `bot trading ${p.bot.loops.size} pairs; tokens expire every ${o.tokenLifetimeSeconds} s, keep-alives every ${o.keepAliveMs} ms`,
    );

    // Participant calls through the bot's own REST client, one round at a time.
    const wallets = sandbox.manifest.wallets.filter((w) => w.marketMaker).map((w) => w.address);
    const calls = { ok: 0, failed: 0 };
    const failedCalls: Record<string, number> = {};
    let round: Promise<void> | undefined;
    const callRound = async () => {
      const results = await Promise.allSettled([
        ...wallets.map((a) => p.venue.rest.getWalletOrders(a)),
        p.venue.rest.getParticipantOrders(sandbox.manifest.venue.participantId),
      ]);
      for (const r of results) {
        if (r.status === 'fulfilled') calls.ok += 1;
        else {
          calls.failed += 1;
          const code = (r.reason as { code?: string }).code ?? 'other';
          failedCalls[code] = (failedCalls[code] ?? 0) + 1;
        }
      }
    };
    driver = setInterval(() => {
      round ??= callRound().finally(() => {
        round = undefined;
      });
    }, o.participantCallMs);

    const progress = (): SoakProgress => ({
      elapsedMs: performance.now() - started,
      tokensIssued: sandbox.tokens.issued,
      participantCalls: { ...calls },
    });
    const stop = o.stop;
    let lastLog = 0;
    let revoked = o.revokeAtMs === undefined;
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        const now = progress();
        if (!revoked && now.elapsedMs >= (o.revokeAtMs ?? 0)) {
          revoked = true;
          log(`revoking every token: ${sandbox.tokens.revokeAll()} live`);
        }
        if (now.elapsedMs - lastLog >= 30_000) {
          lastLog = now.elapsedMs;
          log(
            `${Math.round(now.elapsedMs / 1000)} s: ${now.tokensIssued} tokens issued, participant calls ok ${now.participantCalls.ok} failed ${now.participantCalls.failed}`,
          );
        }
        const done = 'afterMs' in stop ? now.elapsedMs >= stop.afterMs : stop.when(now);
        if (done) {
          clearInterval(check);
          resolve();
        } else if (!('afterMs' in stop) && now.elapsedMs > stop.deadlineMs) {
          clearInterval(check);
          reject(
            new Error(`soak: the stop condition did not hold within ${stop.deadlineMs} ms (${JSON.stringify(now)})`),
          );
        }
      }, 1_000);
    });
    clearInterval(driver);
    driver = undefined;
    await round;

    const m = p.metrics;
    const durationS = (performance.now() - started) / 1000;
    const pairs: PairShare[] = [...p.bot.loops.values()].map((loop) => {
      const s = p.venue.feed.sourceSeconds(loop.symbol) ?? { ws: 0, rest: 0, none: 0 };
      const total = s.ws + s.rest + s.none;
      return { market: loop.symbol, ws: s.ws, rest: s.rest, none: s.none, wsShare: total === 0 ? 0 : s.ws / total };
    });
    // The metric itself, as a scrape sees it.
    await m.text();
    for (const pair of pairs) {
      const metric = await sum(m, 'dltmm_venue_book_ws_share', { market: pair.market });
      if (Math.abs(metric - pair.wsShare) > 0.001)
        throw new Error(
          `soak: dltmm_venue_book_ws_share of ${pair.market} is ${metric}, the feed says ${pair.wsShare}`,
        );
    }
    const unauthorized: Record<string, number> = {};
    for (const s of await series(m, 'dltmm_venue_rest_requests_total'))
      if (String(s.labels.status) === '401') unauthorized[String(s.labels.endpoint)] = s.value;
    const requested: Record<string, number> = {};
    for (const s of await series(m, 'dltmm_venue_auth_token_requests_total'))
      requested[String(s.labels.outcome)] = s.value;
    const status = (await (await fetch(`${sandbox.manifest.venue.controlUrl}/status`)).json()) as {
      tokens: { issued: number; refused: number };
      websocket: { keepAlives: number };
    };
    return {
      durationS,
      pairs,
      unauthorized,
      failedCalls,
      participantCalls: calls,
      tokens: { requested, issuedBySandbox: status.tokens.issued, refusedBySandbox: status.tokens.refused },
      websocket: {
        keepAlivesSent: status.websocket.keepAlives,
        keepAlivesReceived: await sum(m, 'dltmm_venue_ws_messages_total', { type: 'ka' }),
        dataMessages: await sum(m, 'dltmm_venue_ws_messages_total', { type: 'data' }),
        reconnects: await sum(m, 'dltmm_venue_ws_reconnects_total'),
        keepAliveTimeouts: await sum(m, 'dltmm_venue_ws_keepalive_timeouts_total'),
        staleTransitions: await sum(m, 'dltmm_venue_market_stale_transitions_total'),
      },
    };
  } finally {
    if (driver !== undefined) clearInterval(driver);
    if (parts !== undefined) {
      await parts.bot.shutdown(60_000).catch(() => false);
      await parts.close();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report as the few lines an operator reads. */
export function formatReport(r: SoakReport): string {
  const lines = [
    `duration ${r.durationS.toFixed(1)} s`,
    'book fed by the WebSocket (metric dltmm_venue_book_ws_share):',
    ...r.pairs.map(
      (p) =>
        `  ${p.market.padEnd(12)} ws ${(p.wsShare * 100).toFixed(3)} %   (ws ${p.ws.toFixed(1)} s, rest fallback ${p.rest.toFixed(1)} s, no data yet ${p.none.toFixed(1)} s)`,
    ),
    `HTTP 401 answers to the bot: ${JSON.stringify(r.unauthorized)}`,
    `participant calls: ${r.participantCalls.ok} ok, ${r.participantCalls.failed} failed ${JSON.stringify(r.failedCalls)}`,
    `tokens: requested by the bot ${JSON.stringify(r.tokens.requested)}, issued by the sandbox ${r.tokens.issuedBySandbox}, refused ${r.tokens.refusedBySandbox}`,
    `websocket: keep-alives sent ${r.websocket.keepAlivesSent}, received ${r.websocket.keepAlivesReceived}; data messages ${r.websocket.dataMessages}; reconnects ${r.websocket.reconnects}; keep-alive timeouts ${r.websocket.keepAliveTimeouts}; stale transitions ${r.websocket.staleTransitions}`,
  ];
  return lines.join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '5' },
      'token-lifetime': { type: 'string', default: '60' },
      'keep-alive-ms': { type: 'string', default: '5000' },
      'connection-timeout-ms': { type: 'string', default: '15000' },
      'participant-call-ms': { type: 'string', default: '2000' },
    },
  });
  const report = await runTransportSoak({
    tokenLifetimeSeconds: Number(values['token-lifetime']),
    keepAliveMs: Number(values['keep-alive-ms']),
    connectionTimeoutMs: Number(values['connection-timeout-ms']),
    participantCallMs: Number(values['participant-call-ms']),
    stop: { afterMs: Number(values.minutes) * 60_000 },
    log: (l) => process.stdout.write(`${l}\n`),
  });
  process.stdout.write(`${formatReport(report)}\n${JSON.stringify(report)}\n`);
  const ok = report.pairs.every((p) => p.wsShare >= 0.99) && report.participantCalls.failed === 0;
  process.exit(ok ? 0 : 1);
}
