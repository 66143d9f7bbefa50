import { describe, expect, it } from 'vitest';
import { loadFixtures, type Expectation } from '../../../support/matching/fixtures.ts';
import { runFixtureOnEngine, type StepOutcome } from '../../../support/matching/engine-runner.ts';

const fixtures = loadFixtures();

describe('the reference matching engine passes every shared scenario fixture', () => {
  it('finds the fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
  });

  for (const fixture of fixtures) {
    it(`${fixture.file}: ${fixture.name}`, () => {
      const outcomes = runFixtureOnEngine(fixture);
      const actual = outcomes.map((o, i) => observe(o, `${fixture.file} step ${i}`));
      const expected = outcomes.map((o, i) => expectation(o.step.expect, `${fixture.file} step ${i}`));
      expect(actual).toEqual(expected);
    });
  }
});

/** The expected view of a step: only what the fixture states (a step without expectations must succeed). */
function expectation(e: Expectation | undefined, where: string): Record<string, unknown> {
  return { where, error: e?.error ?? null, ...Object.fromEntries(Object.entries(e ?? {}).filter(([k]) => k !== 'error')) };
}

/** What the engine did, reduced to the keys the fixture states. */
function observe(o: StepOutcome, where: string): Record<string, unknown> {
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
