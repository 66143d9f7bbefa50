/**
 * `npm run parity [-- --minutes N] [--seed S]`: does the backtest reproduce live trading? A live session with
 * recording on, then its backtest with the same configuration (test/support/e2e/parity.ts), printed side by
 * side as the README shows them.
 */
import { parseArgs } from 'node:util';
import type { RunSummary } from '../../src/cli/backtest/summary.ts';
import { parity, type ParityOutcome } from '../support/e2e/parity.ts';

const n = (s: string) => Number(s);

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
  return [
    ...lines,
    '',
    '| pair | fills live / backtest | value | PnL | presence % |',
    '|---|---|---|---|---|',
    ...pairs,
  ].join('\n');
}

const s0 = (s: RunSummary) => (s.horizonMs % 60_000 === 0 ? `${s.horizonMs / 60_000} min` : `${s.horizonMs / 1000} s`);

if (import.meta.main) {
  const { values } = parseArgs({
    options: { minutes: { type: 'string', default: '30' }, seed: { type: 'string', default: '7' } },
    strict: true,
  });
  const outcome = await parity({
    seconds: Number(values.minutes) * 60,
    seed: Number(values.seed),
    say: (line) => process.stderr.write(`[parity ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  });
  console.log(parityTable(outcome));
  console.log(`\n${outcome.backtestOutput}`);
}
