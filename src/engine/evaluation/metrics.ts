/** Markouts and PnL attribution on /metrics, read at every scrape from each pair's evaluation. */
import type { Metrics } from '../../telemetry/metrics.ts';
import type { PairEvaluation } from './pair-evaluation.ts';

const horizonLabel = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

export function deriveEvaluationGauges(m: Metrics, pairs: () => Iterable<readonly [string, PairEvaluation]>): void {
  const each = () => [...pairs()];
  const bySide = () =>
    each().flatMap(([pair, e]) =>
      e.horizonsMs.flatMap((h) => {
        const f = e.markouts(h);
        if (f === undefined) return [];
        const horizon = horizonLabel(h);
        return [
          { labels: { pair, side: 'all', horizon }, sum: f.all },
          { labels: { pair, side: 'buy', horizon }, sum: f.bySide.buy },
          { labels: { pair, side: 'sell', horizon }, sum: f.bySide.sell },
        ];
      }),
    );
  m.derivedGauge(
    {
      name: 'markout_bps',
      help: 'Volume-weighted markout of our fills at the horizon, bp of the traded value: the value (fair value, else the mid of others) that long after each fill against its price; positive earned',
      labelNames: ['pair', 'side', 'horizon'],
    },
    () => bySide().flatMap(({ labels, sum }) => (sum.bps === null ? [] : [{ labels, value: sum.bps.toNumber() }])),
  );
  m.derivedGauge(
    {
      name: 'markout_quote',
      help: 'Sum of the markouts of our fills at the horizon, quote units',
      labelNames: ['pair', 'side', 'horizon'],
    },
    () => bySide().map(({ labels, sum }) => ({ labels, value: sum.quote.toNumber() })),
  );
  m.derivedGauge(
    {
      name: 'markout_fills',
      help: 'Fills of ours valued at the horizon',
      labelNames: ['pair', 'side', 'horizon'],
    },
    () => bySide().map(({ labels, sum }) => ({ labels, value: sum.fills })),
  );
  m.derivedGauge(
    {
      name: 'markout_level_bps',
      help: 'Volume-weighted markout of our fills at the horizon by the ladder level of their quote (0 nearest the centre), bp',
      labelNames: ['pair', 'level', 'horizon'],
    },
    () =>
      each().flatMap(([pair, e]) =>
        e.horizonsMs.flatMap((h) =>
          [...(e.markouts(h)?.byLevel ?? [])].flatMap(([level, sum]) =>
            sum.bps === null
              ? []
              : [{ labels: { pair, level: String(level), horizon: horizonLabel(h) }, value: sum.bps.toNumber() }],
          ),
        ),
      ),
  );
  m.derivedGauge(
    {
      name: 'pnl_attribution',
      help: 'PnL marked to the fair value (else the mid of others), quote units: total = spread_capture + inventory - commissions - chain_fees',
      labelNames: ['pair', 'part'],
    },
    () =>
      each().flatMap(([pair, e]) => {
        const a = e.attribution();
        return (
          [
            ['total', a.total],
            ['spread_capture', a.spreadCapture],
            ['inventory', a.inventory],
            ['commissions', a.commissions],
            ['chain_fees', a.chainFees],
          ] as const
        ).map(([part, v]) => ({ labels: { pair, part }, value: v.toNumber() }));
      }),
  );
}
