/**
 * Backtest speed: simulated time over wall time of `dlt-mm backtest` replaying a recorded session of the
 * sandbox's four pairs through the bot, on one core; and a sweep's throughput, four parameter combinations on
 * two worker threads against the same four one after the other on one.
 *
 * The recording: `DLTMM_BENCH_RECORDING=<file.rec.sqlite>` with its bot configuration beside it
 * (`DLTMM_BENCH_CONFIG`, as `npm run parity` leaves them: `recordings/` and `bot.yaml` in its directory), or else
 * a session recorded here first (`DLTMM_BENCH_MINUTES`, default 2: live trading takes that long in wall time).
 */
import { join } from 'node:path';
import { runOne } from '../../src/cli/backtest/compose.ts';
import { combinations, runGrid } from '../../src/cli/backtest/grid.ts';
import { checkedSetup } from '../../src/cli/bootstrap/setup.ts';
import { processIo } from '../../src/cli/process-io.ts';
import { readRecordings } from '../../src/store/recording-read.ts';
import { parity } from '../support/e2e/parity.ts';
import { fmt, type Row } from './harness.ts';

export const title = 'backtest: replay speed and sweep throughput';

async function session(): Promise<{ config: string; recordings: string[] }> {
  const file = process.env.DLTMM_BENCH_RECORDING;
  const config = process.env.DLTMM_BENCH_CONFIG;
  if (file !== undefined && config !== undefined) return { config, recordings: [file] };
  const minutes = Number(process.env.DLTMM_BENCH_MINUTES ?? '2');
  const p = await parity({ seconds: minutes * 60, seed: 7, say: (l) => process.stderr.write(`  ${l}\n`) });
  return { config: join(p.dir, 'bot.yaml'), recordings: [...p.recordings] };
}

export async function run(): Promise<Row[]> {
  const { config, recordings } = await session();
  const io = { ...processIo(process.env, process.cwd()), stdout: () => undefined };
  const setup = checkedSetup(config, io, { connection: false });
  const data = readRecordings(recordings);
  const span = data.span as { fromMs: number; toMs: number };
  const stopped = data.actions.find((a) => a.type === 'shutdown')?.recvMs;
  const base = { recordings, fromMs: span.fromMs, toMs: stopped ?? span.toMs, seed: 1 };
  const out = join(setup.configPath, '..', 'bench-backtest');
  const single = await runOne({ setup, data, ...base, overrides: {}, out }, io, () => performance.now());
  const speed = single.simulatedMs / single.wallMs;
  const combos = combinations([
    { key: 'ladder.bidSpreadBps', values: ['20', '40'] },
    { key: 'ladder.levels', values: ['2', '3'] },
  ]);
  const job = { ...base, configPath: setup.configPath, cwd: process.cwd(), out: join(out, 'grid') };
  const timed = async (workers: number) => {
    const t0 = performance.now();
    await runGrid({ ...job, out: join(job.out, `w${workers}`) }, combos, workers, () => undefined);
    return performance.now() - t0;
  };
  const one = await timed(1);
  const two = await timed(2);
  const minutes = single.simulatedMs / 60_000;
  const pairs = data.pairs.length;
  return [
    {
      benchmark: `backtest, ${pairs} pairs, ${fmt(minutes, 1)} min recorded`,
      measure: 'simulated time / wall time, one core',
      value: `${fmt(speed)}x`,
    },
    {
      benchmark: 'backtest, same session',
      measure: 'a trading day (8 h 30) would take',
      value: `${fmt((8.5 * 3_600_000) / speed / 1000)} s`,
    },
    {
      benchmark: `sweep, ${combos.length} combinations`,
      measure: 'runs per minute on 2 workers (vs 1)',
      value: fmt((combos.length * 60_000) / two, 1),
      baseline: fmt((combos.length * 60_000) / one, 1),
      ratio: `${fmt(one / two, 2)}x`,
    },
  ];
}
