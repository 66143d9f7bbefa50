import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { Attribution } from '../../../../src/core/evaluation/attribution.ts';
import { seeded } from '../../../support/engine/random.ts';

const d = (v: string | number) => new Decimal(v);

describe('PnL attribution', () => {
  it('splits a round trip into spread capture, inventory result and commissions', () => {
    const a = new Attribution();
    // Buy 2 at 99 (commission 0.1) while the value is 100; sell 2 at 102 (commission 0.1) while it is 101.
    a.addFill({ baseDelta: d(2), quoteDelta: d('-198.1'), commission: d('0.1'), valueAtFill: d(100) });
    a.addFill({ baseDelta: d(-2), quoteDelta: d('203.9'), commission: d('0.1'), valueAtFill: d(101) });
    a.addChainFee(d('0.05'));
    const p = a.at(d(105));
    expect({
      total: p.total.toFixed(),
      spread: p.spreadCapture.toFixed(),
      inventory: p.inventory.toFixed(),
      commissions: p.commissions.toFixed(),
      chainFees: p.chainFees.toFixed(),
      position: p.position.toFixed(),
    }).toEqual({
      // cash 5.8, flat, less the chain fee
      total: '5.75',
      // (100 - 99) × 2 + (102 - 101) × 2
      spread: '4',
      // held 2 while the value went 100 -> 101
      inventory: '2',
      commissions: '0.2',
      chainFees: '0.05',
      position: '0',
    });
  });

  it('marks an open position at the value now: the inventory result follows the value after the fills', () => {
    const a = new Attribution();
    a.addFill({ baseDelta: d(3), quoteDelta: d('-300'), commission: d(0), valueAtFill: d('100.5') });
    expect(a.at(d(99)).inventory.toFixed()).toBe('-4.5');
    expect(a.at(d(99)).total.toFixed()).toBe('-3');
    // No value yet: the position counts at its fills' values.
    expect(a.at(null).inventory.toFixed()).toBe('0');
    expect(a.at(null).total.toFixed()).toBe(a.at(null).spreadCapture.toFixed());
  });

  it('total = spread capture + inventory result - commissions - chain fees, exactly, over many random fills', () => {
    const rand = seeded(20261126);
    const a = new Attribution();
    const amount = (scale: number) => new Decimal(Math.floor(rand() * 1e9)).div(new Decimal(10).pow(scale));
    for (let i = 0; i < 2_000; i++) {
      const buy = rand() < 0.5;
      const q = amount(6).add('0.000001');
      const price = d(100).add(amount(8));
      const commission = amount(9);
      const cash = q.mul(price).toDecimalPlaces(6, Decimal.ROUND_DOWN);
      a.addFill({
        baseDelta: buy ? q : q.neg(),
        quoteDelta: (buy ? cash.neg() : cash).sub(commission),
        commission,
        valueAtFill: d(100).add(amount(12)),
      });
      if (i % 7 === 0) a.addChainFee(amount(15));
    }
    for (const value of [d('99.123456789012'), d('101'), null]) {
      const p = a.at(value);
      const parts = p.spreadCapture.add(p.inventory).sub(p.commissions).sub(p.chainFees);
      expect(parts.sub(p.total).isZero()).toBe(true);
    }
    expect(a.fills).toBe(2_000);
  });
});
