/** The report's CSV tables, for spreadsheets: one file per table, every pair in it. */
import type { DayReport } from './data.ts';

type Cell = string | number | boolean | null;

function cell(value: Cell): string {
  const text = value === null ? '' : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csv(rows: ReadonlyArray<ReadonlyArray<Cell>>): string {
  return `${rows.map((row) => row.map(cell).join(',')).join('\n')}\n`;
}

const iso = (ms: number) => new Date(ms).toISOString();

function markoutsCsv(report: DayReport): string {
  return csv([
    ['pair', 'horizon_ms', 'side', 'fills', 'markout_quote', 'markout_bps'],
    ...report.pairs.flatMap((pair) =>
      pair.evaluation.markouts.map((row) => [pair.pairId, row.horizonMs, row.side, row.fills, row.quote, row.bps]),
    ),
  ]);
}

function attributionCsv(report: DayReport): string {
  return csv([
    [
      'pair',
      'total',
      'spread_capture',
      'inventory',
      'commissions',
      'chain_fees',
      'opening_position',
      'opening_value',
      'closing_position',
      'closing_value',
      'unvalued_fills',
    ],
    ...report.pairs.map((pair) => {
      const parts = pair.evaluation.attribution;
      return [
        pair.pairId,
        parts.total,
        parts.spreadCapture,
        parts.inventory,
        parts.commissions,
        parts.chainFees,
        parts.openingPosition,
        parts.openingValue,
        parts.closingPosition,
        parts.closingValue,
        parts.unvalued,
      ];
    }),
  ]);
}

function samplesCsv(report: DayReport): string {
  return csv([
    [
      'pair',
      'time',
      'mark',
      'position',
      'realised',
      'unrealised',
      'fees',
      'bid',
      'ask',
      'spread_bps',
      'max_spread_bps',
      'compliant',
      'presence',
    ],
    ...report.pairs.flatMap((pair) =>
      pair.samples.map((sample) => [
        pair.pairId,
        iso(sample.atMs),
        sample.mark,
        sample.position,
        sample.realised,
        sample.unrealised,
        sample.fees,
        sample.bid,
        sample.ask,
        sample.spreadBps,
        sample.maxSpreadBps,
        sample.compliant,
        sample.presence,
      ]),
    ),
  ]);
}

function complianceCsv(report: DayReport): string {
  return csv([
    [
      'pair',
      'symbol',
      'target',
      'presence',
      'met',
      'continuous_s',
      'present_s',
      'down_s',
      'halted_s',
      'exception_s',
      'max_spread',
      'min_size',
      'size_ratio',
      'guard',
      'breaches',
    ],
    ...report.pairs.flatMap((pair) => {
      const compliance = pair.compliance;
      return compliance === null
        ? []
        : [
            [
              pair.pairId,
              pair.symbol,
              compliance.target,
              compliance.presence,
              compliance.met,
              compliance.continuousMs / 1000,
              compliance.presentMs / 1000,
              compliance.downMs / 1000,
              compliance.haltedMs / 1000,
              compliance.exceptionMs / 1000,
              compliance.maxSpread,
              compliance.minSize,
              compliance.maxSizeRatio,
              compliance.guard,
              pair.breaches.map((breach) => breach.limit).join(' '),
            ],
          ];
    }),
  ]);
}

function fillsCsv(report: DayReport): string {
  return csv([
    ['pair', 'time', 'side', 'role', 'quantity', 'price', 'fee', 'tx_hash'],
    ...report.pairs.flatMap((pair) =>
      pair.fills.map((fill) => [
        pair.pairId,
        iso(fill.atMs),
        fill.side,
        fill.role,
        fill.quantity,
        fill.price,
        fill.fee,
        fill.txHash,
      ]),
    ),
  ]);
}

function transactionsCsv(report: DayReport): string {
  return csv([
    ['chain', 'wallet', 'kind', 'sent', 'included', 'failed', 'not_included', 'fee_base_units', 'fee_native'],
    ...report.transactions.map((group) => [
      group.chain,
      group.wallet,
      group.kind,
      group.sent,
      group.included,
      group.failed,
      group.other,
      group.fee,
      group.feeNative,
    ]),
  ]);
}

export function reportCsv(
  report: DayReport,
): Record<'samples' | 'compliance' | 'fills' | 'transactions' | 'markouts' | 'attribution', string> {
  return {
    markouts: markoutsCsv(report),
    attribution: attributionCsv(report),
    samples: samplesCsv(report),
    compliance: complianceCsv(report),
    fills: fillsCsv(report),
    transactions: transactionsCsv(report),
  };
}
