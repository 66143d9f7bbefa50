/**
 * The alert rules of config/deploy/prometheus/: `promtool check rules` accepts them and `promtool test rules` runs
 * their unit tests (dlt-mm-alerts.test.yaml: each alert fires when it should and stays silent when it should
 * not). promtool comes from Debian's `prometheus` package, which .ci/run installs when it is missing.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { requireTool } from '../support/deploy/tools.ts';

const dir = fileURLToPath(new URL('../../config/deploy/prometheus/', import.meta.url));
function promtoolIn(cwd: string, ...args: string[]): { code: number; out: string } {
  try {
    return {
      code: 0,
      out: execFileSync(requireTool('promtool'), args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    };
  } catch (e) {
    const x = e as { status: number; stdout: string; stderr: string };
    return { code: x.status, out: `${x.stdout}${x.stderr}` };
  }
}
const promtool = (...args: string[]) => promtoolIn(dir, ...args);

type Rules = { groups: { rules: { alert: string; expr: string; for?: string }[] }[] };
const rules = parseYaml(readFileSync(join(dir, 'dlt-mm-alerts.yaml'), 'utf8')) as Rules;
const tests = parseYaml(readFileSync(join(dir, 'dlt-mm-alerts.test.yaml'), 'utf8')) as {
  tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
};

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    const r = promtool('check', 'rules', 'dlt-mm-alerts.yaml');
    expect(r).toMatchObject({ code: 0 });
    expect(r.out).toMatch(/SUCCESS: 11 rules found/);
  });

  it('pass their promtool unit tests', () => {
    const r = promtool('test', 'rules', 'dlt-mm-alerts.test.yaml');
    expect(r.out).toMatch(/SUCCESS/);
    expect(r.code).toBe(0);
  });

  it('cover every condition an operator is paged or warned about, each tested firing', () => {
    const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(alerts.toSorted()).toEqual(
      [
        'DltMmDown',
        'DltMmKillSwitchTripped',
        'DltMmPairPaused',
        'DltMmPairStopped',
        'DltMmMarketDataStale',
        'DltMmQuoteSideMissing',
        'DltMmInventoryMismatch',
        'DltMmFollowerLag',
        'DltMmNativeFeeBalanceLow',
        'DltMmUnknownOutcomesLingering',
        'DltMmTradeReconciliationMismatch',
      ].toSorted(),
    );
    const firing = new Set(
      tests.tests.flatMap((t) => t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)),
    );
    expect(alerts.filter((a) => !firing.has(a))).toEqual([]);
  });

  it('a unit test fails when a rule no longer does what it says', () => {
    // The same tests against rules whose follower-lag threshold was raised tenfold: promtool must report it.
    const broken = readFileSync(join(dir, 'dlt-mm-alerts.yaml'), 'utf8').replace(
      '(dltmm_event_follower_behind) > 10',
      '(dltmm_event_follower_behind) > 100',
    );
    expect(broken).not.toBe(readFileSync(join(dir, 'dlt-mm-alerts.yaml'), 'utf8'));
    const out = withRules(broken);
    expect(out.code).not.toBe(0);
    expect(out.out).toMatch(/DltMmFollowerLag/);
  });
});

function withRules(text: string): { code: number; out: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'dlt-mm-rules-'));
  try {
    writeFileSync(join(tmp, 'dlt-mm-alerts.yaml'), text);
    copyFileSync(join(dir, 'dlt-mm-alerts.test.yaml'), join(tmp, 'dlt-mm-alerts.test.yaml'));
    return promtoolIn(tmp, 'test', 'rules', 'dlt-mm-alerts.test.yaml');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
