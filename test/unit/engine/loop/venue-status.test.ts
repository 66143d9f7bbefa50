/** The venue status of a pair: a book that opens again (the end of a halt) has its trading status read at once. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ChainAdapter, OnChainPairState } from '../../../../src/chains/types.ts';
import { VenueStatus } from '../../../../src/engine/loop/venue-status.ts';
import { pairWith } from '../../../support/pairs.ts';
import { derivePairRules } from '../../../../src/core/rules.ts';

const rules = derivePairRules(pairWith('evm-pair'));
const binding = {
  pairId: 'p',
  symbol: 'P',
  chain: 'evm' as const,
  orderBook: '0x1',
  baseToken: '0x2',
  quoteToken: '0x3',
  rules,
};

describe('VenueStatus', () => {
  it('reads the trading status again as soon as the book reopens after a halt, not at the next trade-info poll', async () => {
    let phase = 4;
    const adapter = {
      readPairState: async () => ({ phase, open: phase === 1 }) as OnChainPairState,
    } as unknown as ChainAdapter;
    let status = 'AUTOMATIC_TRADING_HALT';
    let reads = 0;
    const rest = {
      getTradeInfo: async () => {
        reads += 1;
        return { raw: {}, tradingStatus: status };
      },
    };
    const s = new VenueStatus(binding, rest, adapter, pino({ level: 'silent' }), () => undefined, { now: () => 1_000 });
    await s.refreshTradeInfo(0);
    await s.refreshPhase();
    expect([reads, s.current.tradingStatus, s.current.phaseOpen]).toEqual([1, 'AUTOMATIC_TRADING_HALT', false]);
    await s.refreshPhase();
    expect(reads).toBe(1);
    phase = 1;
    status = 'CONTINUOUS_TRADING';
    await s.refreshPhase();
    expect([reads, s.current.tradingStatus, s.current.phaseOpen, s.current.tradeInfoAtMs]).toEqual([
      2,
      'CONTINUOUS_TRADING',
      true,
      1_000,
    ]);
  });
});
