/**
 * The sandbox of the capacity benchmark in a process of its own, so that its work (chain A node aside, the
 * chain B emulator, the venue API and the simulated market) is not counted in the bot's process:
 * `node test/bench/capacity/sandbox-process.ts <pairs> <manifest path>`. Prints `ready` once the manifest is
 * written; SIGTERM stops everything. `CAPACITY_CHANNELS=32` gives the chain B market maker 32 channel accounts
 * (default: the sandbox's 8). Spawned with an IPC channel, it answers an `InclusionRequest` message with the
 * `Inclusion` of that window (or `{ error }`), from the timeline it keeps from the start.
 */
import { startSandbox } from '../../../src/sandbox/venue/start.ts';
import { InclusionWatch, type InclusionRequest } from './inclusion.ts';
import { capacityPairs } from './pairs.ts';

const [count, manifest] = process.argv.slice(2);
if (count === undefined || manifest === undefined) throw new Error('usage: sandbox-process.ts <pairs> <manifest path>');
const sandbox = await startSandbox({
  pairs: capacityPairs(Number(count)),
  ports: { api: 0, evm: 0, wasm: 0 },
  manifest,
  flow: { enabled: true, seed: 7 },
  ...(process.env.CAPACITY_CHANNELS === undefined
    ? {}
    : { wasm: { channelAccounts: Number(process.env.CAPACITY_CHANNELS) } }),
});
const inclusion = new InclusionWatch(sandbox);
await inclusion.start();
process.on('message', (request: InclusionRequest) => {
  inclusion.measure(request).then(
    (result) => process.send?.(result),
    (e: unknown) => process.send?.({ error: e instanceof Error ? e.message : String(e) }),
  );
});
process.stdout.write(`ready ${sandbox.readyMs}\n`);
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  inclusion.stop();
  process.disconnect?.();
  void sandbox.stop().then(() => process.exit(0));
});
