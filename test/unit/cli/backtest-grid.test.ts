/** A sweep's parameters: every combination of the --grid options, each set in the strategy file's YAML. */
import { describe, expect, it } from 'vitest';
import { overridden } from '../../../src/cli/backtest/compose.ts';
import { combinations, comboDir, gridOf } from '../../../src/cli/backtest/grid.ts';
import { thrown } from '../../support/errors.ts';

const LADDER = `kind: ladder
ladder:
  levels: 3 # per side
  bidSpreadBps: 20
referencePrice: [fair, mid]
`;

describe('backtest sweeps', () => {
  it('runs every combination of the axes, each named for its directory', () => {
    const combos = combinations(gridOf(['ladder.bidSpreadBps=10,20,30', 'ladder.levels=2,3']));
    expect(combos).toHaveLength(6);
    expect(combos[0]).toEqual({ 'ladder.bidSpreadBps': '10', 'ladder.levels': '2' });
    expect(combos.at(-1)).toEqual({ 'ladder.bidSpreadBps': '30', 'ladder.levels': '3' });
    expect(comboDir(combos[0] as Record<string, string>)).toBe('ladder.bidSpreadBps=10_ladder.levels=2');
  });

  it('refuses an axis without values', () => {
    expect(thrown(() => gridOf(['ladder.levels='])).message).toMatch(/expected <key>=<value>,<value>/);
  });

  it("sets each parameter in the file's YAML (numbers as numbers, comments kept) and refuses one the file does not set", () => {
    const text = overridden(LADDER, { 'ladder.levels': '2', 'ladder.bidSpreadBps': '35' }, 'ladder.yaml');
    expect(text).toContain('levels: 2 # per side');
    expect(text).toContain('bidSpreadBps: 35\n');
    expect(thrown(() => overridden(LADDER, { 'ladder.askSpread': '1' }, 'ladder.yaml')).message).toMatch(
      /ladder.yaml has no ladder.askSpread/,
    );
  });
});
