/**
 * Parameter sweeps: `--grid key=v1,v2` options into every combination, each run as its own backtest on a
 * worker thread (a pool of `workers`), each with its report in a directory named after its combination.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DltError } from '../../core/errors.ts';
import type { RunSummary } from './summary.ts';

export interface GridAxis {
  readonly key: string;
  readonly values: readonly string[];
}

/** What a worker needs to run one combination. */
export interface GridJob {
  readonly configPath: string;
  readonly cwd: string;
  readonly recordings: readonly string[];
  readonly fromMs: number;
  readonly toMs: number;
  readonly strategy?: string;
  readonly seed: number;
  readonly balances?: { readonly base: string; readonly quote: string };
  readonly overrides: Readonly<Record<string, string>>;
  readonly out: string;
}

export interface GridResult {
  readonly summary: RunSummary;
  readonly html: string;
  readonly simulatedMs: number;
  readonly wallMs: number;
}

export function gridOf(options: readonly string[]): GridAxis[] {
  return options.map((o) => {
    const eq = o.indexOf('=');
    const key = o.slice(0, eq);
    const values = o
      .slice(eq + 1)
      .split(',')
      .filter((v) => v !== '');
    if (eq <= 0 || values.length === 0)
      throw new DltError('E_USAGE', `--grid ${JSON.stringify(o)}: expected <key>=<value>,<value>...`);
    return { key, values };
  });
}

export function combinations(axes: readonly GridAxis[]): Array<Record<string, string>> {
  return axes.reduce<Array<Record<string, string>>>(
    (acc, axis) => acc.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.key]: v }))),
    [{}],
  );
}

/** A directory name for a combination: `ladder.bidSpreadBps=10_ladder.levels=2`. */
export function comboDir(combo: Readonly<Record<string, string>>): string {
  return Object.entries(combo)
    .map(([k, v]) => `${k}=${v}`)
    .join('_')
    .replace(/[^A-Za-z0-9._=-]/g, '-');
}

export async function runGrid(
  base: Omit<GridJob, 'overrides' | 'out'> & { readonly out: string },
  combos: ReadonlyArray<Record<string, string>>,
  workers: number,
  progress: (line: string) => void,
): Promise<GridResult[]> {
  const results: GridResult[] = new Array(combos.length);
  let next = 0;
  const worker = async () => {
    while (next < combos.length) {
      const i = next++;
      const combo = combos[i] as Record<string, string>;
      const job: GridJob = { ...base, overrides: combo, out: join(base.out, comboDir(combo)) };
      results[i] = await runInWorker(job);
      progress(`  ran ${comboDir(combo)} (${i + 1} of ${combos.length})\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, combos.length) }, worker));
  return results;
}

function runInWorker(job: GridJob): Promise<GridResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./grid-worker.ts', import.meta.url), { workerData: job });
    w.once('message', (m: { ok: true; result: GridResult } | { ok: false; error: string }) => {
      if (m.ok) resolve(m.result);
      else reject(new DltError('E_USAGE', m.error));
    });
    w.once('error', reject);
    w.once('exit', (code) => {
      if (code !== 0) reject(new Error(`backtest worker exited with ${code}`));
    });
  });
}
