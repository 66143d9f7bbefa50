/**
 * The chain B order book passes every shared matching fixture: all of them through the emulator's contract
 * invocation layer, and a few again as real signed transactions over RPC.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../support/matching/fixtures.ts';
import { WasmFixtureVenue } from '../../../support/sandbox/wasm/fixture-venue.ts';
import { expectedView, observedView } from '../../../support/matching/engine-runner.ts';

const all = loadFixtures();
const OVER_RPC = ['01-full-match.json', '11-cancel.json', '20-execution-conditions.json', '23-no-prefund.json'];
const ran = { direct: 0, rpc: 0 };

afterAll(() => {
  console.log(
    `chain B order book: ran ${ran.direct} of ${all.length} matching fixtures through the invocation layer, ${ran.rpc} over RPC`,
  );
});

describe('the chain B order book passes the shared matching fixtures', () => {
  it('finds the fixtures', () => {
    expect(all.length).toBeGreaterThan(0);
  });

  for (const fixture of all) {
    it(`${fixture.file}: ${fixture.name}`, async () => {
      const venue = new WasmFixtureVenue(fixture);
      const outcomes = await venue.run(fixture, 'direct');
      ran.direct++;
      expect(outcomes.map((o, i) => observedView(o, `${fixture.file} step ${i}`))).toEqual(
        outcomes.map((o, i) => expectedView(o.step.expect, `${fixture.file} step ${i}`)),
      );
    });
  }

  for (const fixture of all.filter((f) => OVER_RPC.includes(f.file))) {
    it(`${fixture.file} as signed transactions over RPC`, async () => {
      const venue = new WasmFixtureVenue(fixture);
      await venue.serve();
      try {
        const outcomes = await venue.run(fixture, 'rpc');
        ran.rpc++;
        expect(outcomes.map((o, i) => observedView(o, `${fixture.file} step ${i}`))).toEqual(
          outcomes.map((o, i) => expectedView(o.step.expect, `${fixture.file} step ${i}`)),
        );
      } finally {
        await venue.close();
      }
    });
  }

  it('ran every fixture it found, and some over RPC', () => {
    expect(ran.direct).toBe(all.length);
    expect(ran.rpc).toBe(OVER_RPC.length);
  });
});
