/**
 * The Grafana dashboard of config/deploy/grafana/ as JSON that Grafana loads: unique panel ids, a grid that fits and
 * does not overlap, every query through the dashboard's data source variable, a panel for everything an
 * operator watches, and a provisioning file that points at it. (The queries themselves are run against a real
 * Prometheus in prometheus.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { allPanels, dashboardQueries, metricNames, type Dashboard } from '../support/deploy/dashboard.ts';

const read = (p: string) => readFileSync(new URL(`../../config/deploy/grafana/${p}`, import.meta.url), 'utf8');
const dashboard = JSON.parse(read('dlt-mm-dashboard.json')) as Dashboard;
const panels = allPanels(dashboard);

describe('Grafana dashboard', () => {
  it('has unique panel ids and a grid that fits 24 columns without overlaps', () => {
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    const cells = new Set<string>();
    const overlaps: string[] = [];
    for (const p of panels) {
      const g = p.gridPos;
      expect({ title: p.title, fits: g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.h > 0 }).toEqual({
        title: p.title,
        fits: true,
      });
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          const key = `${x},${y}`;
          if (cells.has(key)) overlaps.push(`${p.title} at ${key}`);
          cells.add(key);
        }
    }
    expect(overlaps).toEqual([]);
  });

  it('queries only through its data source variable, each target with its own refId', () => {
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')).toMatchObject({
      type: 'datasource',
      query: 'prometheus',
    });
    for (const p of panels.filter((x) => x.type !== 'row')) {
      expect({ panel: p.title, uid: p.datasource?.uid }).toEqual({ panel: p.title, uid: '${datasource}' });
      expect(p.targets?.length).toBeGreaterThan(0);
      expect(new Set(p.targets?.map((t) => t.refId)).size).toBe(p.targets?.length);
      for (const t of p.targets ?? []) expect(t.datasource?.uid).toBe('${datasource}');
    }
  });

  it('shows everything an operator watches', () => {
    const shown = new Set(dashboardQueries(dashboard).flatMap((q) => metricNames(q.expr)));
    const watched = {
      'quote presence per pair and side': 'dltmm_quote_presence',
      'quoted spread': 'dltmm_quote_spread_bps',
      position: 'dltmm_position_base',
      'PnL components': 'dltmm_pnl_quote',
      fills: 'dltmm_fills_total',
      'rejections by reason': 'dltmm_order_rejections_total',
      'inclusion latency': 'dltmm_tx_inclusion_seconds_bucket',
      'follower lag, chain A': 'dltmm_evm_follower_lag_blocks',
      'follower lag, chain B': 'dltmm_wasm_follower_lag_ledgers',
      'market-data staleness': 'dltmm_venue_market_stale',
      reconnects: 'dltmm_venue_ws_reconnects_total',
      'kill switch': 'dltmm_kill_switch',
      'paused pairs': 'dltmm_pair_paused',
      'native fee balances': 'dltmm_native_balance',
      'unknown outcomes': 'dltmm_orders_unknown_outcome',
    };
    expect(Object.entries(watched).filter(([, metric]) => !shown.has(metric))).toEqual([]);
  });

  it('is provisioned from a file provider', () => {
    const provisioning = parseYaml(read('provisioning/dashboards.yaml')) as {
      apiVersion: number;
      providers: { type: string; options: { path: string } }[];
    };
    expect(provisioning.apiVersion).toBe(1);
    expect(provisioning.providers).toMatchObject([{ type: 'file', options: { path: expect.stringMatching(/^\//) } }]);
    expect(dashboard.uid).toBe('dlt-mm');
  });
});
