/** The report's CSV tables, for spreadsheets: one file per table, every pair in it. */
import type { DayReport } from './data.ts';

function cell(v: string | number | boolean | null): string {
  const s = v === null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csv(rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null>>): string {
  return `${rows.map((r) => r.map(cell).join(',')).join('\n')}\n`;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function reportCsv(
  report: DayReport,
): Record<'samples' | 'compliance' | 'fills' | 'transactions' | 'markouts' | 'attribution', string> {
  return {
    markouts: csv([
      ['pair', 'horizon_ms', 'side', 'fills', 'markout_quote', 'markout_bps'],
      ...report.pairs.flatMap((p) =>
        p.evaluation.markouts.map((m) => [p.pairId, m.horizonMs, m.side, m.fills, m.quote, m.bps]),
      ),
    ]),
    attribution: csv([
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
      ...report.pairs.map((p) => {
        const a = p.evaluation.attribution;
        return [
          p.pairId,
          a.total,
          a.spreadCapture,
          a.inventory,
          a.commissions,
          a.chainFees,
          a.openingPosition,
          a.openingValue,
          a.closingPosition,
          a.closingValue,
          a.unvalued,
        ];
      }),
    ]),
    samples: csv([
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
      ...report.pairs.flatMap((p) =>
        p.samples.map((s) => [
          p.pairId,
          iso(s.atMs),
          s.mark,
          s.position,
          s.realised,
          s.unrealised,
          s.fees,
          s.bid,
          s.ask,
          s.spreadBps,
          s.maxSpreadBps,
          s.compliant,
          s.presence,
        ]),
      ),
    ]),
    compliance: csv([
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
      ...report.pairs.flatMap((p) => {
        const c = p.compliance;
        return c === null
          ? []
          : [
              [
                p.pairId,
                p.symbol,
                c.target,
                c.presence,
                c.met,
                c.continuousMs / 1000,
                c.presentMs / 1000,
                c.downMs / 1000,
                c.haltedMs / 1000,
                c.exceptionMs / 1000,
                c.maxSpread,
                c.minSize,
                c.maxSizeRatio,
                c.guard,
                p.breaches.map((b) => b.limit).join(' '),
              ],
            ];
      }),
    ]),
    fills: csv([
      ['pair', 'time', 'side', 'role', 'quantity', 'price', 'fee', 'tx_hash'],
      ...report.pairs.flatMap((p) =>
        p.fills.map((f) => [p.pairId, iso(f.atMs), f.side, f.role, f.quantity, f.price, f.fee, f.txHash]),
      ),
    ]),
    transactions: csv([
      ['chain', 'wallet', 'kind', 'sent', 'included', 'failed', 'not_included', 'fee_base_units', 'fee_native'],
      ...report.transactions.map((g) => [
        g.chain,
        g.wallet,
        g.kind,
        g.sent,
        g.included,
        g.failed,
        g.other,
        g.fee,
        g.feeNative,
      ]),
    ]),
  };
}
