/** The report's charts of the whole day, across pairs: the transactions sent and the rejections. */
import type { TopLevelSpec } from 'vega-lite';
import { base } from './chart-kit.ts';
import type { Chart } from './charts.ts';
import type { DayReport } from './data.ts';

export function rejectionsChart(report: DayReport): Chart {
  return {
    id: 'rejections',
    title: 'Our orders the venue or chain rejected, by reason',
    spec: {
      ...base('Our orders the venue or chain rejected, by reason'),
      height: Math.max(60, 22 * new Set(report.rejections.map((r) => r.reason)).size),
      data: { values: report.rejections.map((r) => ({ reason: r.reason, pair: r.pairId, count: r.count })) },
      mark: 'bar',
      encoding: {
        y: { field: 'reason', type: 'nominal', title: null },
        x: { field: 'count', type: 'quantitative', title: 'orders', axis: { tickMinStep: 1, format: 'd' } },
        color: { field: 'pair', type: 'nominal' },
      },
    } as TopLevelSpec,
  };
}

export function transactionsChart(report: DayReport): Chart {
  const rows = report.transactions.flatMap((g) => [
    { what: `${g.chain} ${g.kind}`, status: 'included', count: g.included },
    { what: `${g.chain} ${g.kind}`, status: 'failed on chain', count: g.failed },
    { what: `${g.chain} ${g.kind}`, status: 'not included', count: g.other },
  ]);
  return {
    id: 'transactions',
    title: 'Transactions sent, by chain and kind',
    spec: {
      ...base('Transactions sent, by chain and kind'),
      height: Math.max(60, 22 * report.transactions.length),
      data: { values: rows },
      mark: 'bar',
      encoding: {
        y: { field: 'what', type: 'nominal', title: null },
        x: { field: 'count', type: 'quantitative', title: 'transactions', axis: { tickMinStep: 1, format: 'd' } },
        color: {
          field: 'status',
          type: 'nominal',
          title: null,
          scale: { domain: ['included', 'failed on chain', 'not included'], range: ['#2e9e4f', '#d62728', '#9aa4ad'] },
        },
      },
    } as TopLevelSpec,
  };
}
