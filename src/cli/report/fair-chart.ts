/** The report's fair-value chart: the pair's fair value against our best quotes and the mid of others' book. */
import type { TopLevelSpec } from 'vega-lite';
import { venueWallMs } from '../../core/calendar.ts';
import { base, thin, timeAxis } from './chart-kit.ts';
import type { Chart } from './charts.ts';
import type { PairDay } from './data.ts';

const SERIES = ['fair value', "others' mid", 'our best bid', 'our best ask'] as const;

export function fairValueChart(p: PairDay, domain: [number, number]): Chart {
  const price = (series: (typeof SERIES)[number], atMs: number, v: string | null) =>
    v === null ? [] : [{ t: venueWallMs(atMs), series, price: Number(v) }];
  const rows = [
    ...thin(p.fairValues).flatMap((s) => [
      ...price('fair value', s.atMs, s.fair),
      ...price("others' mid", s.atMs, s.othersMid),
    ]),
    ...thin(p.samples).flatMap((s) => [
      ...price('our best bid', s.atMs, s.bid),
      ...price('our best ask', s.atMs, s.ask),
    ]),
  ];
  const title = `${p.symbol}: fair value against our best quotes and the mid of others' book`;
  return {
    id: `fair-${p.pairId}`,
    title,
    spec: {
      ...base(title),
      data: { values: rows },
      mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.2 },
      encoding: {
        x: timeAxis(domain),
        y: { field: 'price', type: 'quantitative', scale: { zero: false }, title: 'price' },
        color: {
          field: 'series',
          type: 'nominal',
          title: null,
          scale: { domain: [...SERIES], range: ['#111111', '#9aa4ad', '#2e9e4f', '#d62728'] },
        },
        strokeDash: {
          field: 'series',
          type: 'nominal',
          legend: null,
          scale: {
            domain: [...SERIES],
            range: [
              [1, 0],
              [4, 3],
              [1, 0],
              [1, 0],
            ],
          },
        },
      },
    } as TopLevelSpec,
  };
}
