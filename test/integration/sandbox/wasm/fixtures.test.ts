/**
 * The chain B order book passes every shared matching fixture: all of them through the emulator's contract
 * invocation layer, and a few again as real signed transactions over RPC.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadFixtures, type Expectation } from '../../../support/matching/fixtures.ts';
import { WasmFixtureVenue, type WasmStepOutcome } from './fixture-venue.ts';

const all = loadFixtures();
const OVER_RPC = ['01-full-match.json', '11-cancel.json', '20-execution-conditions.json', '23-no-prefund.json'];
const ran = { direct: 0, rpc: 0 };

afterAll(() => {
  console.log(`chain B order book: ran ${ran.direct} of ${all.length} matching fixtures through the invocation layer, ${ran.rpc} over RPC`);
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
      expect(outcomes.map((o, i) => observe(o, `${fixture.file} step ${i}`))).toEqual(outcomes.map((o, i) => expectation(o.step.expect, `${fixture.file} step ${i}`)));
    });
  }

  for (const fixture of all.filter((f) => OVER_RPC.includes(f.file))) {
    it(`${fixture.file} as signed transactions over RPC`, async () => {
      const venue = new WasmFixtureVenue(fixture);
      await venue.serve();
      try {
        const outcomes = await venue.run(fixture, 'rpc');
        ran.rpc++;
        expect(outcomes.map((o, i) => observe(o, `${fixture.file} step ${i}`))).toEqual(outcomes.map((o, i) => expectation(o.step.expect, `${fixture.file} step ${i}`)));
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

function expectation(e: Expectation | undefined, where: string): Record<string, unknown> {
  return { where, error: e?.error ?? null, ...Object.fromEntries(Object.entries(e ?? {}).filter(([k]) => k !== 'error')) };
}

function observe(o: WasmStepOutcome, where: string): Record<string, unknown> {
  const e = o.step.expect ?? {};
  const view = (list: typeof o.book.buys) => list.map((r) => ({ orderId: r.id, wallet: r.wallet, quantity: r.remaining, price: r.price }));
  const all: Record<string, unknown> = {
    orderId: o.orderId,
    events: o.events,
    balanceDeltas: o.balanceDeltas,
    book: { buy: view(o.book.buys), sell: view(o.book.sells) },
    lastPrice: o.book.lastPrice,
    phase: o.book.phase,
  };
  return { where, error: o.error, ...Object.fromEntries(Object.keys(e).filter((k) => k !== 'error').map((k) => [k, all[k]])) };
}
