/** The report's markout curve: our fills' volume-weighted markout (bp) against the horizon, per side. */
import type { TopLevelSpec } from 'vega-lite';
import { base } from './chart-kit.ts';
import type { Chart } from './charts.ts';
import type { PairDay } from './data.ts';

const SIDES = ['buy', 'sell', 'all'] as const;

export function markoutChart(p: PairDay): Chart {
  const rows = p.evaluation.markouts.flatMap((m) =>
    m.bps === null ? [] : [{ seconds: m.horizonMs / 1000, side: m.side, bps: Number(m.bps), fills: m.fills }],
  );
  const title = `${p.symbol}: markout of our fills (volume-weighted, bp) by horizon and side; above 0 earned`;
  return {
    id: `markout-${p.pairId}`,
    title,
    spec: {
      ...base(title),
      data: { values: rows },
      layer: [
        {
          mark: { type: 'line', point: true, strokeWidth: 1.5 },
          encoding: {
            x: { field: 'seconds', type: 'quantitative', scale: { type: 'log' }, title: 'horizon (s, log scale)' },
            y: { field: 'bps', type: 'quantitative', title: 'markout (bp)' },
            color: {
              field: 'side',
              type: 'nominal',
              title: null,
              scale: { domain: [...SIDES], range: ['#2e9e4f', '#d62728', '#111111'] },
            },
            tooltip: [
              { field: 'side', type: 'nominal' },
              { field: 'seconds', type: 'quantitative' },
              { field: 'bps', type: 'quantitative', format: '.2f' },
              { field: 'fills', type: 'quantitative' },
            ],
          },
        },
        { mark: { type: 'rule', color: '#9aa4ad', strokeDash: [4, 3] }, encoding: { y: { datum: 0 } } },
      ],
    } as TopLevelSpec,
  };
}
