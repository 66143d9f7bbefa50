import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../support/matching/fixtures.ts';
import { runFixtureOnEngine } from '../../../support/matching/engine-runner.ts';

const fixtures = loadFixtures();

describe('the reference matching engine passes every shared scenario fixture', () => {
  it('finds the fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
  });

  for (const fixture of fixtures) {
    it(`${fixture.file}: ${fixture.name}`, () => {
      const outcomes = runFixtureOnEngine(fixture);
      outcomes.forEach((o, i) => {
        const e = o.step.expect;
        const where = `${fixture.file} step ${i}`;
        // A step without expectations must simply succeed.
        expect({ where, error: o.error }).toEqual({ where, error: e?.error ?? null });
        if (e === undefined) return;
        if (e.orderId !== undefined) expect({ where, orderId: o.orderId }).toEqual({ where, orderId: e.orderId });
        if (e.events !== undefined) expect({ where, events: o.events }).toEqual({ where, events: e.events });
        if (e.balanceDeltas !== undefined) expect({ where, deltas: o.balanceDeltas }).toEqual({ where, deltas: e.balanceDeltas });
        if (e.book !== undefined) {
          const view = (list: typeof o.book.buys) => list.map((r) => ({ orderId: r.id, wallet: r.wallet, quantity: r.remaining, price: r.price }));
          expect({ where, book: { buy: view(o.book.buys), sell: view(o.book.sells) } }).toEqual({ where, book: e.book });
        }
        if (e.lastPrice !== undefined) expect({ where, lastPrice: o.book.lastPrice }).toEqual({ where, lastPrice: e.lastPrice });
        if (e.phase !== undefined) expect({ where, phase: o.book.phase }).toEqual({ where, phase: e.phase });
      });
    });
  }
});
