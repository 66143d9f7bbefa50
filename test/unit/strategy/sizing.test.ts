/**
 * A quantity that is only rounded down to the size grid may come from a quotient cut to the digits the grid needs: the grid
 * size is then the one the exact quotient gives, for any size, price and grid of the venue's scales.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, quotientDown } from '../../../src/core/decimal.ts';
import { approvalFor } from '../../../src/core/money.ts';
import { quoteCost, roundSizeDown } from '../../../src/strategy/sizing.ts';
import { evmRules } from '../../support/strategy/builders.ts';

/** A positive decimal of at most 18 fraction digits and 22 integer digits, as the venue's scales write them. */
const scaled = (maxExponent: number) =>
  fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** BigInt(maxExponent + 18) }), fc.integer({ min: 0, max: 18 }))
    .map(([units, decimals]) => new Decimal(units.toString()).div(new Decimal(10).pow(decimals)));

describe('sizes from a quotient cut to the digits of the grid', () => {
  it('round down to the grid size of the exact quotient', () => {
    fc.assert(
      fc.property(scaled(22), scaled(8), scaled(4), scaled(2), (value, price, minimumSize, sizeIncrement) => {
        const rules = { minimumSize, sizeIncrement };
        const exact = roundSizeDown(value.div(price), rules);
        const cut = roundSizeDown(quotientDown(value, price), rules);
        expect(cut === null ? null : cut.toFixed()).toBe(exact === null ? null : exact.toFixed());
      }),
      { numRuns: 2_000 },
    );
  });

  it('leave the precision and rounding of every other division as they were', () => {
    const before = { precision: Decimal.precision, rounding: Decimal.rounding };
    quotientDown(new Decimal(1), new Decimal(3));
    expect({ precision: Decimal.precision, rounding: Decimal.rounding }).toEqual(before);
    expect(new Decimal(2).div(3).toFixed().length).toBeGreaterThan(150);
  });

  it('cut toward zero', () => {
    expect(quotientDown(new Decimal(2), new Decimal(3)).toFixed()).toBe(`0.${'6'.repeat(24)}`);
  });
});

describe('what a quote commits', () => {
  it('is the approval of a buy and the size of a sell, for each size, rate and wallet at one price', () => {
    const rules = evmRules();
    const price = new Decimal('100.37');
    const approval = (q: Decimal, mm: boolean, r = rules) =>
      new Decimal(approvalFor('buy', q, price, r.scales, r.commissions, mm).amount.toString())
        .div(r.scales.quoteNative.toString())
        .toFixed();
    const cheaper = { ...rules, commissions: { ...rules.commissions, makerBps: 0, takerBps: 0, marketMakerBps: 0 } };
    const one = new Decimal('1');
    const asked: Array<[Decimal, boolean, typeof rules]> = [
      [one, false, rules],
      [one, false, rules],
      [new Decimal('3'), false, rules],
      [one, true, rules],
      [one, false, cheaper],
      [one, false, rules],
    ];
    expect(asked.map(([q, mm, r]) => quoteCost('buy', price, q, r, mm).toFixed())).toEqual(
      asked.map(([q, mm, r]) => approval(q, mm, r)),
    );
    expect(quoteCost('sell', price, new Decimal('3'), rules, false).toFixed()).toBe('3');
  });
});
