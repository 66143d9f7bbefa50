/**
 * `dlt-mm backtest --config <file> --data <recording...> [--strategy <file>] [--from <time>] [--to <time>]
 * [--out <dir>] [--grid key=v1,v2 ...] [--workers <n>] [--seed <n>] [--balances <base>,<quote>]`: replays
 * recordings through the bot
 * (src/backtest/) and writes the trading-day report of the replayed span, marked as a backtest. With `--grid`,
 * every combination of the parameters runs (on worker threads), each with its report in its own directory,
 * and one table ranks them.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DltError } from '../../core/errors.ts';
import { readRecordings } from '../../store/recording-read.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { usageArgs } from '../args.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import type { BacktestOutcome } from '../backtest/compose.ts';
import { combinations, gridOf, runGrid } from '../backtest/grid.ts';
import { rankedTable, runLines } from '../backtest/table.ts';

export const BACKTEST_USAGE = `  dlt-mm backtest --config <file> --data <recording...> [--strategy <file>] [--from <time>] [--to <time>]
                  [--out <dir>] [--grid <key>=<v1>,<v2> ...] [--workers <n>] [--seed <n>] [--balances <base>,<quote>]
                                      replays recordings through the bot; a sweep with --grid`;

/** A time given as ISO 8601 or epoch milliseconds. */
function timeOf(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms))
    throw new DltError(
      'E_USAGE',
      `${what}: ${JSON.stringify(text)} is not a time (ISO 8601 or epoch ms)\n${BACKTEST_USAGE}`,
    );
  return ms;
}

export async function backtestCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = usageArgs(
    () =>
      parseArgs({
        args,
        options: {
          config: { type: 'string' },
          data: { type: 'string', multiple: true },
          strategy: { type: 'string' },
          from: { type: 'string' },
          to: { type: 'string' },
          out: { type: 'string' },
          grid: { type: 'string', multiple: true },
          workers: { type: 'string' },
          seed: { type: 'string' },
          balances: { type: 'string' },
        },
        strict: true,
        allowPositionals: true,
      }),
    BACKTEST_USAGE,
  );
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${BACKTEST_USAGE}`);
  // `--data a b c`: the files after the first are positionals.
  const recordings = [...(values.data ?? []), ...positionals].map((p) => resolve(io.cwd, p));
  if (recordings.length === 0) throw new DltError('E_USAGE', `--data names no recording\n${BACKTEST_USAGE}`);
  const setup = checkedSetup(values.config, io, { connection: false });
  const range = {
    ...(values.from === undefined ? {} : { fromMs: timeOf(values.from, '--from') as number }),
    ...(values.to === undefined ? {} : { toMs: timeOf(values.to, '--to') as number }),
  };
  const data = readRecordings(recordings, range);
  if (data.span === null) throw new DltError('E_USAGE', `the recordings hold nothing between --from and --to`);
  const fromMs = range.fromMs ?? data.span.fromMs;
  // By default up to where the live bot began to shut down (it cancelled everything then), else the end.
  const stopped = data.actions.find((a) => a.type === 'shutdown')?.recvMs;
  const toMs = range.toMs ?? stopped ?? data.span.toMs;
  const out = resolve(io.cwd, values.out ?? resolve(setup.configPath, '..', setup.config.report.out, 'backtest'));
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  const [baseAmount, quoteAmount, ...extra] = (values.balances ?? '').split(',');
  if (values.balances !== undefined && (baseAmount === undefined || quoteAmount === undefined || extra.length > 0))
    throw new DltError('E_USAGE', `--balances: expected <base>,<quote> (human amounts)\n${BACKTEST_USAGE}`);
  const grid = gridOf(values.grid ?? []);
  const base = {
    configPath: setup.configPath,
    recordings,
    fromMs,
    toMs,
    ...(values.strategy === undefined ? {} : { strategy: values.strategy }),
    ...(values.balances === undefined
      ? {}
      : { balances: { base: baseAmount as string, quote: quoteAmount as string } }),
    seed,
  };
  if (grid.length === 0) {
    // The replay (and the sandbox's matching engine it runs on) loads only here: `run` never loads it.
    const { runOne } = await import('../backtest/compose.ts');
    const outcome: BacktestOutcome = await runOne({ setup, data, ...base, overrides: {}, out }, io, () =>
      performance.now(),
    );
    io.stdout(runLines(outcome));
    return EXIT_OK;
  }
  const combos = combinations(grid);
  const workers = Math.max(1, Number(values.workers ?? Math.min(2, combos.length)));
  const results = await runGrid({ ...base, cwd: io.cwd, out }, combos, workers, (line) => io.stdout(line));
  io.stdout(rankedTable(results));
  return EXIT_OK;
}
