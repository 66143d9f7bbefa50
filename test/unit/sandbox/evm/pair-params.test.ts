/** From a TradingPair to the raw parameters an order book is deployed with, through the core's rules and units. */
import { describe, expect, it } from 'vitest';
import { bookSettingsFromPair, decimalsOf } from '../../../../src/sandbox/evm/pair-params.ts';
import { orderBookConstructorArgs, versionBytes } from '../../../../src/sandbox/evm/book-deploy.ts';
import { thrown } from '../../../support/errors.ts';
import { pairWith } from '../../../support/pairs.ts';

describe('order book parameters from a trading pair', () => {
  it('converts every human value of the pair to raw and native units exactly', () => {
    const { params, liquidityBand, version } = bookSettingsFromPair(pairWith('evm-pair'));
    expect({ ...params, tickTable: params.tickTable.slice(9, 11) }).toEqual({
      self: '',
      commissionWallet: '',
      scales: { baseInternal: 10_000n, quoteInternal: 10_000n, baseNative: 100_000_000n, quoteNative: 1_000_000n },
      makerBps: 10,
      takerBps: 20,
      marketMakerBps: 5,
      maximumMatches: 10,
      minimumSize: 5_000n,
      sizeIncrement: 5_000n,
      // REGULATORY band 4: 50..100 in steps of 0.05, 100..200 in steps of 0.1 (raw at 10^4).
      tickTable: [
        { from: 500_000n, tick: 500n },
        { from: 1_000_000n, tick: 1_000n },
      ],
      priceCollarBps: 2000,
      staticReferencePrice: 1_000_000n,
      staticThresholdBps: 1000,
      dynamicThresholdBps: 500,
      minimumOrderValue: 10_000_000n,
      maximumOrderValue: 1_000_000_000_000n,
      prefunded: true,
    });
    expect(params.tickTable).toHaveLength(19);
    expect([liquidityBand, version]).toEqual([4, '1.0.0']);
  });

  it('applies per-pair overrides: a fixed tick, a minimum size', () => {
    const { params } = bookSettingsFromPair(pairWith('evm-pair'), { tick: { fixed: '0.25' }, minimumSize: '1.5' });
    expect([params.tickTable, params.minimumSize, params.sizeIncrement]).toEqual([
      [{ from: 0n, tick: 2_500n }],
      15_000n,
      5_000n,
    ]);
  });

  it('refuses what does not scale exactly or cannot be deployed, never rounding', () => {
    // Band 6 has ticks of 0.0001, finer than a quote internal scale of 100.
    expect(
      thrown(() => bookSettingsFromPair(pairWith('evm-pair', { quoteTokenInternalScale: '100', liquidityBand: 6 })))
        .code,
    ).toBe('E_NOT_EXACT');
    expect(thrown(() => bookSettingsFromPair(pairWith('evm-pair', { staticReferencePrice: undefined }))).code).toBe(
      'E_PAIR_RULES_MISSING',
    );
    expect(thrown(() => bookSettingsFromPair(pairWith('evm-pair', { baseTokenNativeScale: '15000' }))).code).toBe(
      'E_SANDBOX',
    );
    expect(thrown(() => decimalsOf(25n, 'quote')).code).toBe('E_SANDBOX');
    expect(thrown(() => versionBytes('1.0.0-beta.12')).code).toBe('E_SANDBOX');
  });

  it('builds the constructor arguments: decimals from native scales, version as bytes11, chain A phase codes', () => {
    const { params } = bookSettingsFromPair(pairWith('evm-pair'));
    const a = '0x0000000000000000000000000000000000000001';
    const [config, controls] = orderBookConstructorArgs({
      params,
      baseToken: a,
      quoteToken: a,
      registry: a,
      commissionWallet: a,
      fallbackWallet: a,
      version: '1.0.0',
      phase: 'closed',
    });
    expect([config.version, controls.initialPhase, controls.minimumOrderValue]).toEqual([
      '0x312e302e30000000000000',
      2,
      10_000_000n,
    ]);
    expect([decimalsOf(100_000_000n, 'base'), decimalsOf(1n, 'unit')]).toEqual([8, 0]);
    expect(
      thrown(() =>
        orderBookConstructorArgs({
          params: { ...params, prefunded: false },
          baseToken: a,
          quoteToken: a,
          registry: a,
          commissionWallet: a,
          fallbackWallet: a,
        }),
      ).code,
    ).toBe('E_SANDBOX');
  });
});
