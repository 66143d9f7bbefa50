/**
 * A real Prometheus (Debian's package) scrapes a real bot trading the sandbox for a minute, with the alert
 * rules of config/deploy/prometheus/ loaded; then every query of the Grafana dashboard (template variables filled
 * in as Grafana would) and every alert expression goes through Prometheus's HTTP API. Each must parse, each
 * dashboard query and variable must return data, every rule must evaluate without error, and every metric
 * they name must be one the bot exports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../../src/sandbox/net.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/venue/start.ts';
import { SESSION_LIMITS, writeBotConfig } from '../support/e2e/bot-config.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { until } from '../support/e2e/poll.ts';
import { dashboardQueries, dashboardVariables, metricNames, type Dashboard } from '../support/deploy/dashboard.ts';
import { requireTool } from '../support/deploy/tools.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dashboard = JSON.parse(
  readFileSync(join(root, 'config/deploy/grafana/dlt-mm-dashboard.json'), 'utf8'),
) as Dashboard;
const rules = parseYaml(readFileSync(join(root, 'config/deploy/prometheus/dlt-mm-alerts.yaml'), 'utf8')) as {
  groups: { rules: { alert: string; expr: string }[] }[];
};
/** How long Prometheus scrapes before the queries run. */
const SCRAPE_MS = 60_000;

let dir: string;
let sandbox: Sandbox;
let bot: BotProcess;
let prometheus: ChildProcess;
let api: string;
let exported: Set<string>;

interface QueryAnswer {
  readonly status: string;
  readonly error?: string;
  readonly data?: { resultType: string; result: unknown[] };
}

async function query(expr: string): Promise<QueryAnswer> {
  const res = await fetch(`${api}/api/v1/query`, { method: 'POST', body: new URLSearchParams({ query: expr }) });
  return (await res.json()) as QueryAnswer;
}

/** What Grafana substitutes for the variables: the bot's job, every instance and pair, a 15 s rate window. */
const fill = (expr: string) =>
  expr
    .replaceAll('$__rate_interval', '15s')
    .replaceAll('$job', 'dlt-mm')
    .replaceAll('$instance', '.*')
    .replaceAll('$pair', '.*');

beforeAll(async () => {
  const prometheusBin = requireTool('prometheus');
  dir = mkdtempSync(join(tmpdir(), 'dlt-mm-prometheus-'));
  sandbox = await startSandbox({
    ports: { api: 0, evm: 0, wasm: 0 },
    manifest: join(dir, 'manifest.json'),
    evm: { blockTimeMs: 1000 },
    wasm: { ledgerIntervalMs: 1000 },
  });
  const metricsPort = await freePort();
  const config = writeBotConfig({
    dir,
    name: 'bot',
    manifest: sandbox.manifestPath as string,
    metricsPort,
    store: join(dir, 'bot.sqlite'),
    risk: { ...SESSION_LIMITS, nativeAlert: '0.5' },
  });
  bot = new BotProcess(config, metricsPort, join(dir, 'bot.log'));
  await until('bot ready', 60_000, async () => {
    if (!bot.running) throw new Error(`the bot exited\n${bot.tail()}`);
    return (await bot.readiness()).ready;
  });
  const port = await freePort();
  writeFileSync(
    join(dir, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [join(root, 'config/deploy/prometheus/dlt-mm-alerts.yaml')],
      scrape_configs: [{ job_name: 'dlt-mm', static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }] }],
    }),
  );
  prometheus = spawn(
    prometheusBin,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  api = `http://127.0.0.1:${port}`;
  // A minute of scrapes: the rate windows of the dashboard are full and every rule has been evaluated.
  await until(
    'a minute of scrapes',
    SCRAPE_MS + 60_000,
    async () => {
      const r = await query('count_over_time(up{job="dlt-mm"}[2m])');
      const n = Number((r.data?.result[0] as { value?: [number, string] } | undefined)?.value?.[1] ?? 0);
      return n >= SCRAPE_MS / 1000;
    },
    1000,
  );
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  exported = new Set(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap((m) =>
      m[2] === 'histogram' ? [`${m[1]}_bucket`, `${m[1]}_sum`, `${m[1]}_count`] : [m[1] as string],
    ),
  );
}, 240_000);

afterAll(async () => {
  prometheus?.kill('SIGTERM');
  await bot?.kill();
  await sandbox?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('Prometheus scraping the bot on the sandbox', () => {
  it('every dashboard query parses and returns data', async () => {
    const queries = dashboardQueries(dashboard);
    expect(queries.length).toBeGreaterThan(30);
    const answers = [];
    for (const q of queries) {
      const a = await query(fill(q.expr));
      answers.push({
        panel: q.panel,
        expr: q.expr,
        status: a.status,
        error: a.error ?? null,
        series: (a.data?.result.length ?? 0) > 0,
      });
    }
    expect(answers).toEqual(answers.map((a) => ({ ...a, status: 'success', error: null, series: true })));
  });

  it('every dashboard variable lists values', async () => {
    for (const v of dashboardVariables(dashboard)) {
      const m = /^label_values\((.+), (\w+)\)$/.exec(fill(v.query));
      expect({ variable: v.name, labelValues: m !== null }).toEqual({ variable: v.name, labelValues: true });
      const res = await fetch(`${api}/api/v1/series?${new URLSearchParams({ 'match[]': m?.[1] as string })}`);
      const series = ((await res.json()) as { data: Record<string, string>[] }).data;
      expect({ variable: v.name, values: new Set(series.map((s) => s[m?.[2] as string])).size > 0 }).toEqual({
        variable: v.name,
        values: true,
      });
    }
  });

  it('every alert expression parses, and Prometheus evaluates every rule without error', async () => {
    const alerts = rules.groups.flatMap((g) => g.rules);
    for (const r of alerts)
      expect({ alert: r.alert, status: (await query(r.expr)).status }).toEqual({ alert: r.alert, status: 'success' });
    const loaded = (
      (await (await fetch(`${api}/api/v1/rules`)).json()) as {
        data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
      }
    ).data;
    const health = loaded.groups.flatMap((g) =>
      g.rules.map((r) => ({ name: r.name, health: r.health, error: r.lastError ?? '' })),
    );
    expect(health).toEqual(alerts.map((a) => ({ name: a.alert, health: 'ok', error: '' })));
  });

  it('the bot is up and no alert fires on a healthy sandbox session', async () => {
    expect((await query('up{job="dlt-mm"}')).data?.result).toMatchObject([{ value: [expect.any(Number), '1'] }]);
    const firing = (
      (await (await fetch(`${api}/api/v1/alerts`)).json()) as {
        data: { alerts: { labels: { alertname: string }; state: string }[] };
      }
    ).data.alerts;
    expect(firing.filter((a) => a.state === 'firing').map((a) => a.labels.alertname)).toEqual([]);
  });

  it('every metric the dashboard and the alert rules name is one the bot exports', () => {
    const named = new Set(
      [
        ...dashboardQueries(dashboard).map((q) => q.expr),
        ...dashboardVariables(dashboard).map((v) => v.query),
        ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
      ].flatMap(metricNames),
    );
    expect([...named].filter((n) => n !== 'up' && !exported.has(n))).toEqual([]);
    expect(named.size).toBeGreaterThan(25);
  });
});
