import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStrategyConfig } from '../../../src/core/config/load.ts';
import { DltError } from '../../../src/core/errors.ts';

const dir = new URL('../../../strategies/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const load = (name: string) => parseStrategyConfig(readFileSync(new URL(name, dir), 'utf8'), name);

function problems(text: string): string[] {
  try {
    parseStrategyConfig(text, 's.yaml');
  } catch (e) {
    if (e instanceof DltError && e.code === 'E_CONFIG_INVALID') return e.details.problems as string[];
    throw e;
  }
  return [];
}

describe('strategy files', () => {
  it('every file in strategies/ passes the schema', () => {
    expect(files).toEqual(expect.arrayContaining(['avellaneda-stoikov.yaml', 'ladder.yaml', 'skewed-ladder.yaml']));
    for (const f of files) expect(() => load(f)).not.toThrow();
  });
  it('the sandbox default is a three-level ladder and the others are what their names say', () => {
    const ladder = load('ladder.yaml');
    expect(ladder.kind === 'ladder' && ladder.ladder.levels).toBe(3);
    const skewed = load('skewed-ladder.yaml');
    expect(skewed.kind === 'ladder' && skewed.skew !== undefined).toBe(true);
    expect(load('avellaneda-stoikov.yaml').kind).toBe('avellaneda-stoikov');
    const fair = load('fair-ladder.yaml');
    expect(fair.referencePrice[0]).toBe('fair');
    expect(fair.fairValue?.sources.map((s) => s.kind)).toEqual(['feed', 'oracle', 'nav', 'bond']);
  });
  it('every file documents itself with comments', () => {
    for (const f of files) {
      const text = readFileSync(new URL(f, dir), 'utf8');
      expect(text.split('\n').filter((l) => l.trimStart().startsWith('#')).length).toBeGreaterThan(3);
    }
  });
});

describe('strategy schema', () => {
  it('fills every default', () => {
    const s = parseStrategyConfig(
      'kind: avellaneda-stoikov\navellanedaStoikov: { riskAversion: 0.1, orderBookLiquidity: 1000, size: "1", maxInventory: "5" }\n',
      's.yaml',
    );
    expect(s).toMatchObject({
      referencePrice: ['mid', 'last', 'static'],
      refresh: { priceToleranceTicks: 1, sizeTolerance: '0' },
      minSpreadBps: 10,
      avellanedaStoikov: {
        targetInventory: '0',
        volatility: { halfLifeMs: 300_000, minimum: 0.00001, initial: 0.00005, maxGapMs: 600_000 },
      },
    });
    const l = parseStrategyConfig(
      'kind: ladder\nladder: { sizes: ["1"], bidSpreadBps: 5, askSpreadBps: 5 }\n',
      's.yaml',
    );
    expect(l).toMatchObject({ ladder: { levels: 3, spacingBps: 10, sizeUnit: 'base' } });
  });
  it('refuses unknown keys at every depth, zero sizes, repeated sources and impossible fractions', () => {
    const p = problems(`
kind: ladder
referencePrice: [mid, mid]
refresh: { priceToleranceTicks: 1, slack: 2 }
ladder: { sizes: ["0"], bidSpreadBps: 5, askSpreadBps: 5, colour: red }
skew: { maxInventory: "0", sizeSkew: 1.5 }
`).join('\n');
    for (const where of [
      'referencePrice',
      'refresh',
      'slack',
      'ladder.sizes.0',
      'colour',
      'skew.maxInventory',
      'skew.sizeSkew',
    ])
      expect(p).toContain(where);
    expect(
      problems(
        'kind: avellaneda-stoikov\navellanedaStoikov: { riskAversion: 0, orderBookLiquidity: 1, size: "1", maxInventory: "1", volatility: { window: 3 } }\n',
      ).join('\n'),
    ).toMatch(/riskAversion[\s\S]*window/);
  });
});
