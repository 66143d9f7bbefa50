import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../support/matching/fixtures.ts';
import { expectedView, observedView, runFixtureOnEngine } from '../../../support/matching/engine-runner.ts';

const fixtures = loadFixtures();

describe('the reference matching engine passes every shared scenario fixture', () => {
  it('finds the fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
  });

  for (const fixture of fixtures) {
    it(`${fixture.file}: ${fixture.name}`, () => {
      const outcomes = runFixtureOnEngine(fixture);
      const actual = outcomes.map((o, i) => observedView(o, `${fixture.file} step ${i}`));
      const expected = outcomes.map((o, i) => expectedView(o.step.expect, `${fixture.file} step ${i}`));
      expect(actual).toEqual(expected);
    });
  }
});
