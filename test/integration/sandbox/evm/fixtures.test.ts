/**
 * The Solidity order book passes every shared matching fixture that chain A v1 can express (pre-funded books,
 * standard GFD limit orders, registered wallets, no clock steps), on a real node with real transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonRpcProvider } from 'ethers';
import { sandboxProvider } from '../../../../src/sandbox/evm/chain.ts';
import { loadArtifacts } from '../../../../src/sandbox/evm/compile.ts';
import { startEvmNode, type EvmNode } from '../../../../src/sandbox/evm/node.ts';
import { expectedView, statedView } from '../../../support/matching/engine-runner.ts';
import { loadFixtures } from '../../../support/matching/fixtures.ts';
import { FixtureVenue, type EvmStepOutcome } from '../../../support/sandbox/evm/fixture-venue.ts';

const all = loadFixtures();
const runnable = all.filter((f) => f.evmCompatible);
const skipped = all.filter((f) => !f.evmCompatible).map((f) => f.file);
let node: EvmNode;
let provider: JsonRpcProvider;
let ran = 0;

beforeAll(async () => {
  loadArtifacts();
  node = await startEvmNode();
  provider = sandboxProvider(node.rpcUrl);
});

afterAll(async () => {
  provider?.destroy();
  await node?.stop();
  console.log(
    `chain A order book: ran ${ran} of ${all.length} matching fixtures; not expressible on chain A v1: ${skipped.join(', ') || 'none'}`,
  );
});

describe('the chain A order book passes the shared matching fixtures', () => {
  it('finds fixtures that chain A v1 can run', () => {
    expect(runnable.length).toBeGreaterThan(0);
  });

  for (const fixture of runnable) {
    it(`${fixture.file}: ${fixture.name}`, async () => {
      const snapshot = (await provider.send('evm_snapshot', [])) as string;
      try {
        const venue = await FixtureVenue.deploy(provider, fixture);
        const outcomes = await venue.run(fixture);
        ran++;
        const actual = outcomes.map((o, i) => observe(o, `${fixture.file} step ${i}`));
        const expected = outcomes.map((o, i) => expectedView(o.step.expect, `${fixture.file} step ${i}`));
        expect(actual).toEqual(expected);
      } finally {
        await provider.send('evm_revert', [snapshot]);
      }
    });
  }

  it('ran every fixture it found', () => {
    expect(ran).toBe(runnable.length);
  });
});

/** What the chain did, reduced to the keys the fixture states. */
function observe(o: EvmStepOutcome, where: string): Record<string, unknown> {
  return statedView(o.step, o.error, where, {
    orderId: o.orderId,
    events: o.events,
    balanceDeltas: o.balanceDeltas,
    book: o.book,
    lastPrice: o.lastPrice,
    phase: o.phase,
  });
}
