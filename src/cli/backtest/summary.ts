/**
 * The figures a backtest run is judged by, from its day report: fills and traded value, PnL marked to the
 * fair value with its spread capture, the markout at the board's horizon, presence and obligations met, per
 * pair and over all pairs. Sums are exact decimals; a ratio is rounded only for display.
 */
import { Decimal } from '../../core/decimal.ts';
import type { DayReport } from '../report/data.ts';

export interface PairFigures {
  readonly symbol: string;
  readonly fills: number;
  /** Traded value, quote units. */
  readonly volume: string;
  readonly pnl: string;
  readonly spreadCapture: string;
  /** Markout at `horizonMs`, quote units, and bp of the value of the fills it covers (null: none yet). */
  readonly markout: string;
  readonly markoutBps: string | null;
  readonly presence: number | null;
  readonly met: boolean | null;
}

export interface RunSummary extends PairFigures {
  readonly overrides: Readonly<Record<string, string>>;
  readonly horizonMs: number;
  readonly pairs: readonly PairFigures[];
  /** Pairs with obligations that met them, of those with obligations. */
  readonly obligationsMet: string;
}

const ZERO = new Decimal(0);
const sum = (xs: readonly Decimal[]) => xs.reduce((a, b) => a.plus(b), ZERO);

function pairFigures(p: DayReport['pairs'][number], horizonMs: number): PairFigures & { covered: Decimal } {
  const volume = sum(p.fills.map((f) => new Decimal(f.quantity).times(f.price)));
  const a = p.evaluation.attribution;
  const row = p.evaluation.markouts.find((m) => m.horizonMs === horizonMs && m.side === 'all');
  const markout = new Decimal(row?.quote ?? '0');
  const bps = row?.bps ?? null;
  const covered = bps === null || new Decimal(bps).isZero() ? ZERO : markout.div(bps).times(10_000);
  return {
    symbol: p.symbol,
    fills: p.fills.length,
    volume: volume.toFixed(),
    pnl: a.total,
    spreadCapture: a.spreadCapture,
    markout: markout.toFixed(),
    markoutBps: bps,
    presence: p.compliance?.presence ?? null,
    met: p.compliance?.met ?? null,
    covered,
  };
}

/** The run's figures; `horizonMs`: the markout horizon shown (default: the longest in the report). */
export function runSummary(
  report: DayReport,
  overrides: Readonly<Record<string, string>>,
  horizonMs?: number,
): RunSummary {
  const horizons = report.pairs.flatMap((p) => p.evaluation.markouts.map((m) => m.horizonMs));
  const h = horizonMs ?? (horizons.length === 0 ? 0 : Math.max(...horizons));
  const figures = report.pairs.map((p) => pairFigures(p, h));
  const markout = sum(figures.map((f) => new Decimal(f.markout)));
  const covered = sum(figures.map((f) => f.covered));
  const presences = figures.flatMap((f) => (f.presence === null ? [] : [f.presence]));
  const judged = figures.filter((f) => f.met !== null);
  return {
    symbol: 'all',
    overrides,
    horizonMs: h,
    fills: figures.reduce((n, f) => n + f.fills, 0),
    volume: sum(figures.map((f) => new Decimal(f.volume))).toFixed(),
    pnl: sum(figures.map((f) => new Decimal(f.pnl))).toFixed(),
    spreadCapture: sum(figures.map((f) => new Decimal(f.spreadCapture))).toFixed(),
    markout: markout.toFixed(),
    markoutBps: covered.isZero() ? null : markout.div(covered).times(10_000).toFixed(2),
    presence: presences.length === 0 ? null : presences.reduce((a, b) => a + b, 0) / presences.length,
    met: judged.length === 0 ? null : judged.every((f) => f.met === true),
    obligationsMet: `${judged.filter((f) => f.met === true).length}/${judged.length}`,
    pairs: figures.map(({ covered: _c, ...f }) => f),
  };
}
