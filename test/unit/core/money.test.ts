import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import {
  approvalFor,
  commissionOf,
  prefundedBuyLock,
  reimbursementFormula,
  roleRateBps,
  settle,
  valueNative,
} from '../../../src/core/money.ts';
import { priceToRaw, quantityToRaw } from '../../../src/core/units.ts';

const d = (s: string) => new Decimal(s);
// Internal and native scales differ by 10^4 on the base token, as on one of the venue's pairs.
const scales = { baseInternal: 10_000n, quoteInternal: 10_000n, baseNative: 100_000_000n, quoteNative: 1_000_000n };
const commissions = { makerBps: 10, takerBps: 20, marketMakerBps: 5 };

describe('approvals', () => {
  it('a sell approves the base quantity at the native scale', () => {
    const a = approvalFor('sell', d('1.5'), d('101.2'), scales, commissions, false);
    expect(a).toMatchObject({ token: 'base', amount: 150_000_000n, commission: 0n });
  });
  it('a sell whose quantity does not scale exactly is refused, not rounded', () => {
    expect(() => approvalFor('sell', d('0.000000001'), d('1'), scales, commissions, false)).toThrow(
      expect.objectContaining({ code: 'E_NOT_EXACT' }),
    );
  });
  it('a buy approves notional plus commission at max(maker, taker), rounded up', () => {
    // 1.5 * 101.2 = 151.8 -> 151_800_000 native; 20 bp -> 303_600
    expect(approvalFor('buy', d('1.5'), d('101.2'), scales, commissions, false)).toMatchObject({
      token: 'quote',
      principal: 151_800_000n,
      commission: 303_600n,
      amount: 152_103_600n,
      rateBps: 20,
    });
    // A commission with a fraction of a unit is rounded up: 0.000003 * 20/10000 -> 0.0000006 units -> 1
    const tiny = approvalFor('buy', d('0.000003'), d('1'), scales, commissions, false);
    expect(tiny).toMatchObject({ principal: 3n, commission: 1n, amount: 4n });
  });
  it('a market-maker wallet approves at the market-maker rate', () => {
    expect(approvalFor('buy', d('1.5'), d('101.2'), scales, commissions, true)).toMatchObject({
      commission: 75_900n,
      rateBps: 5,
    });
    expect(roleRateBps(commissions, 'taker', true)).toBe(5);
    expect(roleRateBps(commissions, 'maker', false)).toBe(10);
  });
  it('is computed from human values and native scales, never from the internal price', () => {
    const raw = priceToRaw(d('101.2'), scales) * quantityToRaw(d('1.5'), scales);
    const a = approvalFor('buy', d('1.5'), d('101.2'), scales, commissions, false);
    expect(a.principal).not.toBe(raw);
    expect(a.principal).toBe(
      valueNative(priceToRaw(d('101.2'), scales), quantityToRaw(d('1.5'), scales), scales, 'up'),
    );
  });
});

describe('commission and settlement', () => {
  it('commission is ceil(value * bps / 10000)', () => {
    expect(commissionOf(10_000n, 10)).toBe(10n);
    expect(commissionOf(10_001n, 10)).toBe(11n);
    expect(commissionOf(0n, 10)).toBe(0n);
    expect(commissionOf(123n, 0)).toBe(0n);
  });
  it('conserves tokens: buyer debit = seller credit + fee wallet, and rounding favours participants by at most one unit', () => {
    const odd = { baseInternal: 1000n, quoteInternal: 1000n, baseNative: 1000n, quoteNative: 7n };
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        (price, qty, bb, sb) => {
          const s = settle(price, qty, odd, bb, sb);
          expect(s.buyerValue + s.buyerCommission).toBe(s.sellerValue - s.sellerCommission + s.feeWallet);
          expect(s.feeWallet >= 0n).toBe(true);
          expect(s.sellerValue - s.buyerValue <= 1n).toBe(true);
          const exactTimes = price * qty * odd.quoteNative;
          expect(s.buyerValue * 1_000_000n <= exactTimes).toBe(true);
          expect(s.sellerValue * 1_000_000n >= exactTimes || s.sellerValue === s.buyerValue).toBe(true);
        },
      ),
    );
  });
  it('a pre-funded resting buy executing below its limit is reimbursed the spec amount (to within rounding)', () => {
    const limit = d('101.2');
    const exec = d('100.5');
    const qty = d('2');
    const limitRaw = priceToRaw(limit, scales);
    const execRaw = priceToRaw(exec, scales);
    const qtyRaw = quantityToRaw(qty, scales);
    const locked = prefundedBuyLock(limitRaw, qtyRaw, scales, commissions.makerBps);
    const paid = prefundedBuyLock(execRaw, qtyRaw, scales, commissions.makerBps);
    const formula = reimbursementFormula(limit, exec, qty, commissions.makerBps, scales);
    expect(formula.toFixed()).toBe('1401400');
    expect(Number(locked - paid - BigInt(formula.round().toFixed(0)))).toBeLessThanOrEqual(1);
    expect(locked - paid).toBe(1_401_400n);
  });
});
