/**
 * An idle Node process beside the bot: its event-loop delay, sampled as prom-client samples the bot's (every
 * 10 ms), is what the machine's scheduling alone costs a process that does nothing. On SIGUSR2 it writes
 * the p99 since the previous signal (milliseconds) to `<out>` and starts over.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const out = process.argv[2];
if (out === undefined) throw new Error('usage: canary.ts <out file>');
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
process.on('SIGUSR2', () => {
  writeFileSync(out, JSON.stringify({ p99Ms: delay.percentile(99) / 1e6 }));
  delay.reset();
});
setInterval(() => undefined, 60_000);
