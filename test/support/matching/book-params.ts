/**
 * Book parameters that let any flow through: one-unit tick and size, no collar, thresholds or value limits,
 * commissions of 10/20/5 bp. Property tests and benchmarks vary only what they are about.
 */
import type { BookParams } from '../../../src/sandbox/matching/types.ts';

export function openBookParams(overrides: Partial<BookParams> = {}): BookParams {
  return {
    self: 'orderBook',
    commissionWallet: 'commission',
    scales: { baseInternal: 100n, quoteInternal: 1000n, baseNative: 10_000n, quoteNative: 1_000n },
    makerBps: 10,
    takerBps: 20,
    marketMakerBps: 5,
    maximumMatches: 3,
    minimumSize: 1n,
    sizeIncrement: 1n,
    tickTable: [{ from: 0n, tick: 1n }],
    priceCollarBps: 0,
    staticReferencePrice: 10_000n,
    staticThresholdBps: 0,
    dynamicThresholdBps: 0,
    minimumOrderValue: 0n,
    maximumOrderValue: 10n ** 30n,
    prefunded: true,
    ...overrides,
  };
}
