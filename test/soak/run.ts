/**
 * `npm run soak [-- --minutes N] [--seed S]`: runs the real bot against a fresh sandbox with the simulated
 * market on for N minutes (default 5), stops it with SIGTERM and prints one table (test/soak/README.md). Exits 1 on
 * any self-caused rejection, any second cancel, any gauge that differs from the truth or a failed shutdown.
 */
import { parseArgs } from 'node:util';
import { render, rows, verdict } from './report.ts';
import { runSoak } from './soak.ts';

const USAGE = 'Usage: npm run soak [-- --minutes N] [--seed S]';

function options(): { minutes: number; seed: number } {
  try {
    const { values } = parseArgs({
      options: { minutes: { type: 'string', default: '5' }, seed: { type: 'string', default: '1' } },
      strict: true,
      allowPositionals: false,
    });
    const minutes = Number(values.minutes);
    const seed = Number(values.seed);
    if (!(Number.isFinite(minutes) && minutes > 0) || !Number.isInteger(seed) || seed < 0)
      throw new Error('--minutes must be a positive number and --seed a non-negative integer');
    return { minutes, seed };
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const o = options();
const abort = new AbortController();
process.once('SIGINT', () => {
  process.stderr.write('interrupted: stopping the bot and the sandbox\n');
  abort.abort();
  process.once('SIGINT', () => process.exit(130));
});
const say = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
try {
  const { result, dir } = await runSoak({ ...o, say }, abort.signal);
  console.log(
    `dlt-mm soak: ${o.minutes} min on the sandbox, simulated market on (seed ${o.seed}); evidence in ${dir}\n`,
  );
  console.log(render(rows(result)));
  process.exitCode = verdict(result).ok ? 0 : 1;
} catch (e) {
  process.stderr.write(`soak failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = abort.signal.aborted ? 130 : 1;
}
