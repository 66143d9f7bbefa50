import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvmChain, type ChainUnderTest } from '../../support/engine/crash-chains.ts';
import { runCrashCycles } from '../../support/engine/crash-run.ts';

/** Kills of the run (environment `KILLS`, default 20). */
const KILLS = Number(process.env.KILLS ?? 20);

let chain: ChainUnderTest;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-crash-evm-'));
  chain = await startEvmChain();
});
afterAll(async () => {
  await chain?.stop();
  if (process.env.DLTMM_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  else console.error('kept', dir);
});

describe('chain A: the bot killed with SIGKILL at random points of a busy order flow', () => {
  it(
    `never loses an order, never places one twice, and keeps inventory equal to the chain, over ${KILLS} kills`,
    { timeout: 240_000 },
    async () => {
      const summary = await runCrashCycles(chain, dir, KILLS, 0xa11ce);
      console.log(JSON.stringify(summary));
      expect(summary.kills).toBe(KILLS);
      // About half the kills are at a named point; at least a fifth of them must be.
      expect(Object.values(summary.named).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(Math.ceil(KILLS / 5));
    },
  );
});
