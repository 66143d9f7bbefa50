/** Reading the Grafana dashboard of config/deploy/grafana/: its panels' queries, its variables, the metric names in PromQL. */

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly { name: string; type: string; query: unknown }[] };
}

export interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly gridPos: { readonly h: number; readonly w: number; readonly x: number; readonly y: number };
  readonly datasource?: { readonly type: string; readonly uid: string };
  readonly targets?: readonly {
    readonly refId: string;
    readonly expr: string;
    readonly datasource?: { readonly uid: string };
  }[];
  readonly panels?: readonly Panel[];
}

export function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

export function dashboardQueries(d: Dashboard): { panel: string; expr: string }[] {
  return allPanels(d).flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
}

export function dashboardVariables(d: Dashboard): { name: string; query: string }[] {
  return d.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => ({ name: v.name, query: (v.query as { query: string }).query }));
}

const KEYWORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'rate',
  'increase',
  'irate',
  'histogram_quantile',
  'abs',
  'absent',
  'vector',
  'label_values',
  'count_over_time',
  'le',
  'bool',
  'offset',
]);

/** Metric names a PromQL expression reads (identifiers that are neither functions, keywords nor label names). */
export function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/label_values\((.*),\s*\w+\)/g, '$1').replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const withoutMatchers = withoutStrings
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  const withoutRanges = withoutMatchers.replace(/\[[^\]]*\]/g, '');
  return [...withoutRanges.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .map((m) => m[0])
    .filter((w) => !KEYWORDS.has(w) && !/^\d/.test(w));
}
