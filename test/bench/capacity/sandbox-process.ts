/**
 * The sandbox of the capacity benchmark in a process of its own, so that its work (chain A node aside, the
 * chain B emulator, the venue API and the simulated market) is not counted in the bot's process:
 * `node test/bench/capacity/sandbox-process.ts <pairs> <manifest path>`. Prints `ready` once the manifest is
 * written; SIGTERM stops everything. `CAPACITY_CHANNELS=32` gives the chain B market maker 32 channel accounts
 * (default: the sandbox's 8).
 */
import { startSandbox } from '../../../src/sandbox/venue/start.ts';
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
process.stdout.write(`ready ${sandbox.readyMs}\n`);
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void sandbox.stop().then(() => process.exit(0));
});
