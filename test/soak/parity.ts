/**
 * `npm run parity [-- --minutes N] [--seed S] [--dir <session>]`: does the backtest reproduce live trading? A live session with
 * recording on, then its backtest with the same configuration (test/support/e2e/parity.ts), printed side by
 * side as src/backtest/README.md shows them ("Does the backtest match live trading?").
 */
import { parseArgs } from 'node:util';
import type { RunSummary } from '../../src/cli/backtest/summary.ts';
import { DatabaseSync } from 'node:sqlite';
import { Decimal } from '../../src/core/decimal.ts';
import { compare, parity, type ParityOutcome } from '../support/e2e/parity.ts';

const n = (s: string) => Number(s);
const rel = (b: string, l: string) => (n(l) === 0 ? null : Math.abs(n(b) - n(l)) / Math.abs(n(l)));
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);
const yes = (ok: boolean) => (ok ? 'yes' : 'no');
const key = (f: Record<string, string>) => `${f.tx_hash}|${f.side}`;

/** Our fills in a state file. */
function fillsOf(path: string): Array<Record<string, string>> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare('SELECT pair_id, tx_hash, side, price, quantity FROM fills').all() as Array<
      Record<string, string>
    >;
  } finally {
    db.close();
  }
}

export function parityTable(p: ParityOutcome): string {
  const rows: Array<[string, (s: RunSummary) => string]> = [
    ['fills', (s) => String(s.fills)],
    ['traded value', (s) => n(s.volume).toFixed(2)],
    ['PnL (marked to fair value)', (s) => n(s.pnl).toFixed(2)],
    ['spread capture', (s) => n(s.spreadCapture).toFixed(2)],
    [`markout ${s0(p.live)}`, (s) => (s.markoutBps === null ? '-' : `${n(s.markoutBps).toFixed(2)} bp`)],
    ['presence', (s) => (s.presence === null ? '-' : `${(s.presence * 100).toFixed(1)} %`)],
  ];
  const lines = ['| | live | backtest |', '|---|---|---|'];
  for (const [name, f] of rows) lines.push(`| ${name} | ${f(p.live)} | ${f(p.backtest)} |`);
  const pairs = p.live.pairs.map((l) => {
    const b = p.backtest.pairs.find((x) => x.symbol === l.symbol);
    return `| ${l.symbol} | ${l.fills} / ${b?.fills ?? '-'} | ${n(l.volume).toFixed(2)} / ${b === undefined ? '-' : n(b.volume).toFixed(2)} | ${n(l.pnl).toFixed(2)} / ${b === undefined ? '-' : n(b.pnl).toFixed(2)} | ${l.presence === null ? '-' : (l.presence * 100).toFixed(1)} / ${b?.presence == null ? '-' : (b.presence * 100).toFixed(1)} |`;
  });
  const identity = [...p.liveReport.pairs, ...p.backtestReport.pairs].every((x) => {
    const a = x.evaluation.attribution;
    return new Decimal(a.spreadCapture).plus(a.inventory).minus(a.commissions).minus(a.chainFees).eq(a.total);
  });
  const fills = rel(String(p.backtest.fills), String(p.live.fills));
  const volume = rel(p.backtest.volume, p.live.volume);
  const pnlGap = Math.abs(n(p.backtest.pnl) - n(p.live.pnl));
  const pnlBound = Math.max(0.15 * Math.abs(n(p.live.pnl)), 0.01 * n(p.live.volume));
  const presenceGap =
    p.live.presence === null || p.backtest.presence === null ? null : Math.abs(p.backtest.presence - p.live.presence);
  const checks = [
    `fills ${pct(fills)} apart (within 10 %: ${yes(fills !== null && fills <= 0.1)})`,
    `traded value ${pct(volume)} apart (within 10 %: ${yes(volume !== null && volume <= 0.1)})`,
    `PnL ${pnlGap.toFixed(2)} apart; bound ${pnlBound.toFixed(2)}, the larger of 15 % of live and 1 % of its traded value (within: ${yes(pnlGap <= pnlBound)})`,
    `presence ${presenceGap === null ? '-' : (presenceGap * 100).toFixed(1)} points apart (within 2: ${yes(presenceGap !== null && presenceGap <= 0.02)})`,
    `attribution identity exact in every pair of both reports: ${yes(identity)}`,
  ];
  // Our fills matched by the taker's transaction (the replay sends others' recorded transactions again).
  const liveFills = fillsOf(p.liveStore);
  const btFills = fillsOf(p.backtestStore);
  const btKeys = new Set(btFills.map(key));
  const liveKeys = new Set(liveFills.map(key));
  const same = liveFills.filter((f) => btKeys.has(key(f)));
  const samePrice = same.filter((f) => btFills.some((b) => key(b) === key(f) && b.price === f.price));
  checks.push(
    `fills by the same taker transaction in both: ${same.length} (at the same price: ${samePrice.length}); live only: ${liveFills.length - same.length}; backtest only: ${btFills.filter((f) => !liveKeys.has(key(f))).length}`,
  );
  return [
    ...lines,
    '',
    ...checks.map((c) => `- ${c}`),
    '',
    '| pair | fills live / backtest | value | PnL | presence % |',
    '|---|---|---|---|---|',
    ...pairs,
  ].join('\n');
}

const s0 = (s: RunSummary) => (s.horizonMs % 60_000 === 0 ? `${s.horizonMs / 60_000} min` : `${s.horizonMs / 1000} s`);

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '30' },
      seed: { type: 'string', default: '7' },
      dir: { type: 'string' },
    },
    strict: true,
  });
  // --dir: the comparison again of a session already traded (its directory), with this code's backtest.
  const outcome =
    values.dir !== undefined
      ? await compare(values.dir)
      : await parity({
          seconds: Number(values.minutes) * 60,
          seed: Number(values.seed),
          say: (line) => process.stderr.write(`[parity ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
        });
  console.log(parityTable(outcome));
  console.log(`\n${outcome.backtestOutput}`);
}
