import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import {
  checkTick,
  granularBandTick,
  regulatoryTable,
  snapToTick,
  tickAt,
  tickDown,
  tickUp,
  type TickRow,
  type TickRules,
} from '../../../src/core/ticks.ts';

const d = (s: string) => new Decimal(s);
const band = (b: 1 | 2 | 3 | 4 | 5 | 6): TickRules => ({
  kind: 'table',
  source: `band ${b}`,
  rows: regulatoryTable(b),
});
/** The tick of the last row (in order) whose start the price reaches; the first row below its start. */
const walk = (price: Decimal, rows: readonly TickRow[]) =>
  rows.filter((r, i) => i === 0 || price.gte(r.from)).at(-1)?.tick;

describe('regulatory tick table', () => {
  it('includes the lower bound of a price range and excludes the upper', () => {
    expect(tickAt(d('0.0999'), band(1)).toFixed()).toBe('0.0005');
    expect(tickAt(d('0.1'), band(1)).toFixed()).toBe('0.001');
    expect(tickAt(d('99.99'), band(4)).toFixed()).toBe('0.05');
    expect(tickAt(d('100'), band(4)).toFixed()).toBe('0.1');
    expect(tickAt(d('50000'), band(6)).toFixed()).toBe('10');
    expect(tickAt(d('1000000'), band(1)).toFixed()).toBe('500');
  });
  it('finds the same tick as a walk through the rows, at every row boundary and between them', () => {
    for (const b of [1, 4, 6] as const) {
      const rows = regulatoryTable(b);
      const prices = rows
        .flatMap((r) => [r.from, r.from.sub('0.0001'), r.from.add('0.0001'), r.from.mul(3)])
        .filter((p) => p.gt(0));
      for (const p of [...prices, d('0.00001'), d('99999999')])
        expect({ price: p.toFixed(), tick: tickAt(p, band(b)).toFixed() }).toEqual({
          price: p.toFixed(),
          tick: walk(p, rows)?.toFixed(),
        });
    }
  });
  it('finds the same tick for one table looked up again and again, across rows, back and forth', () => {
    const rules = band(3);
    const rows = (rules as Extract<TickRules, { kind: 'table' }>).rows;
    const prices = rows.flatMap((r) => [r.from, r.from.sub('0.0001'), r.from.add('0.0001')]).filter((p) => p.gt(0));
    // Each price after its neighbour, after a distant row, and twice in a row (the same object again).
    const order = prices.flatMap((p, i) => [p, prices[(i * 7) % prices.length] as Decimal, p, p]);
    const found = order.map((p) => `${p.toFixed()} ${tickAt(p, rules).toFixed()}`);
    expect(found).toEqual(order.map((p) => `${p.toFixed()} ${walk(p, rows)?.toFixed()}`));
  });
  it('reads an operator table whose rows are out of order as listed, row after row', () => {
    const rows = [
      { from: d('0'), tick: d('0.01') },
      { from: d('100'), tick: d('1') },
      { from: d('10'), tick: d('0.1') },
    ];
    const rules: TickRules = { kind: 'table', source: 'operator', rows };
    expect([d('5'), d('50'), d('150')].map((p) => tickAt(p, rules).toFixed())).toEqual(['0.01', '0.01', '0.1']);
  });
  it('picks the column by liquidity band', () => {
    const ticks = ([1, 2, 3, 4, 5, 6] as const).map((b) => tickAt(d('150'), band(b)).toFixed());
    expect(ticks).toEqual(['1', '0.5', '0.2', '0.1', '0.05', '0.02']);
  });
  it('reports an off-tick price by one smallest unit with the neighbours on the grid', () => {
    const v = checkTick(d('100.0001'), band(4));
    expect(v?.code).toBe('E_RULE_TICK');
    expect(v?.numbers).toMatchObject({ price: '100.0001', tick: '0.1', below: '100', above: '100.1' });
    expect(checkTick(d('100.1'), band(4))).toBeNull();
  });
});

describe('snapping towards the passive side', () => {
  it('moves a buy down and a sell up, and leaves on-tick prices alone', () => {
    expect(snapToTick(d('101.27'), 'buy', band(4)).toFixed()).toBe('101.2');
    expect(snapToTick(d('101.27'), 'sell', band(4)).toFixed()).toBe('101.3');
    expect(snapToTick(d('101.2'), 'sell', band(4)).toFixed()).toBe('101.2');
  });
  it('lands on a valid price when a sell crosses into a coarser band', () => {
    const p = snapToTick(d('99.97'), 'sell', band(4));
    expect(p.toFixed()).toBe('100');
    expect(checkTick(p, band(4))).toBeNull();
  });
  it('settles on the coarser grid of a custom table whose boundary is off that grid', () => {
    const rules: TickRules = {
      kind: 'table',
      source: 'custom',
      rows: [
        { from: d('0'), tick: d('0.3') },
        { from: d('1'), tick: d('0.25') },
      ],
    };
    const p = snapToTick(d('0.95'), 'sell', rules);
    expect(checkTick(p, rules)).toBeNull();
    expect(p.gte(d('0.95'))).toBe(true);
  });
  it('steps one tick up and down across band boundaries', () => {
    expect(tickUp(d('99.95'), band(4)).toFixed()).toBe('100');
    expect(tickDown(d('100'), band(4)).toFixed()).toBe('99.95');
    expect(tickDown(d('100.1'), band(4)).toFixed()).toBe('100');
  });
  it('supports fixed ticks for granular mode and overrides', () => {
    const fixed: TickRules = { kind: 'fixed', source: 'granular', tick: d('0.0001') };
    expect(checkTick(d('1.2345'), fixed)).toBeNull();
    expect(checkTick(d('1.23455'), fixed)?.code).toBe('E_RULE_TICK');
    expect(snapToTick(d('1.23455'), 'buy', fixed).toFixed()).toBe('1.2345');
  });
});

describe('band 7, the granular tick mode', () => {
  it('is 0.0000001 where the quote internal scale has seven decimals, else the finest price on both grids', () => {
    const ticks = [10n ** 7n, 10n ** 9n, 10n ** 4n, 1n, 4n * 10n ** 6n, 3n].map((q) =>
      granularBandTick(q).tick.toFixed(),
    );
    expect(ticks).toEqual(['0.0000001', '0.0000001', '0.0001', '1', '0.0000005', '1']);
  });
  it('snaps and steps seven-decimal prices', () => {
    const g = granularBandTick(10n ** 8n);
    const rules: TickRules = { kind: 'fixed', ...g };
    expect(snapToTick(d('0.99999996'), 'buy', rules).toFixed()).toBe('0.9999999');
    expect(snapToTick(d('0.99999996'), 'sell', rules).toFixed()).toBe('1');
    expect(tickDown(d('1'), rules).toFixed()).toBe('0.9999999');
    expect(tickUp(d('0.9999999'), rules).toFixed()).toBe('1');
  });
});
