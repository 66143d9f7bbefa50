/** One combination of a sweep, on its own thread: the same run as a single backtest, its result posted back. */
import { parentPort, workerData } from 'node:worker_threads';
import { readRecordings } from '../../store/recording-read.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { processIo } from '../process-io.ts';
import { runOne } from './compose.ts';
import type { GridJob, GridResult } from './grid.ts';

const job = workerData as GridJob;
try {
  const io = { ...processIo(process.env, job.cwd), stdout: () => undefined };
  const setup = checkedSetup(job.configPath, io, { connection: false });
  const data = readRecordings(job.recordings, { fromMs: job.fromMs, toMs: job.toMs });
  const outcome = await runOne({ setup, data, ...job }, io, () => performance.now());
  const result: GridResult = {
    summary: outcome.summary,
    html: outcome.report.html,
    simulatedMs: outcome.simulatedMs,
    wallMs: outcome.wallMs,
  };
  // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a worker's port, not a window
  parentPort?.postMessage({ ok: true, result });
} catch (e) {
  // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a worker's port, not a window
  parentPort?.postMessage({ ok: false, error: e instanceof Error ? e.message : String(e) });
}
