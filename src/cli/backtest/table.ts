/** What a backtest prints: one run's figures with its report, or a sweep's runs ranked by PnL. */
import { Decimal } from '../../core/decimal.ts';
import type { BacktestOutcome } from './compose.ts';
import type { GridResult } from './grid.ts';
import type { PairFigures, RunSummary } from './summary.ts';

const money = (s: string) => new Decimal(s).toFixed(2);
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
const bp = (s: string | null) => (s === null ? '-' : `${new Decimal(s).toFixed(2)}bp`);
const horizon = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);

function row(f: PairFigures): string[] {
  return [
    f.symbol,
    String(f.fills),
    money(f.volume),
    money(f.pnl),
    money(f.spreadCapture),
    bp(f.markoutBps),
    pct(f.presence),
  ];
}

function columns(head: readonly string[], rows: readonly string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

const head = (s: RunSummary) => [
  'PAIR',
  'FILLS',
  'VOLUME',
  'PNL',
  'SPREAD',
  `MARKOUT ${horizon(s.horizonMs)}`,
  'PRESENCE',
];

export function runLines(outcome: BacktestOutcome): string {
  const s = outcome.summary;
  const speed = outcome.wallMs > 0 ? (outcome.simulatedMs / outcome.wallMs).toFixed(0) : '-';
  return `${columns(head(s), [...s.pairs.map(row), row(s)])}
obligations met ${s.obligationsMet}; ${(outcome.simulatedMs / 60_000).toFixed(1)} min replayed in ${(outcome.wallMs / 1000).toFixed(1)} s (${speed}x real time)
report ${outcome.report.html}
`;
}

/** The runs ranked by PnL (best first), each with its report. */
export function rankedTable(results: readonly GridResult[]): string {
  const ranked = results.toSorted((a, b) => new Decimal(b.summary.pnl).cmp(a.summary.pnl));
  const first = ranked[0]?.summary;
  if (first === undefined) return 'no runs\n';
  const rows = ranked.map((r, i) => [
    String(i + 1),
    Object.entries(r.summary.overrides)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    money(r.summary.pnl),
    money(r.summary.spreadCapture),
    bp(r.summary.markoutBps),
    pct(r.summary.presence),
    String(r.summary.fills),
    r.summary.obligationsMet,
    r.html,
  ]);
  const h = [
    '#',
    'PARAMETERS',
    'PNL',
    'SPREAD',
    `MARKOUT ${horizon(first.horizonMs)}`,
    'PRESENCE',
    'FILLS',
    'OBLIGATIONS',
    'REPORT',
  ];
  return `${columns(h, rows)}\n`;
}
