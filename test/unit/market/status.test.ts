/** The venue status of a pair: a book that opens again (the end of a halt) has its trading status read at once. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ChainAdapter, OnChainPairState } from '../../../src/chains/types.ts';
import { PHASE_READ_GRACE_MS, VenueStatus } from '../../../src/market/status.ts';
import { DltError } from '../../../src/core/errors.ts';
import { pairWith } from '../../support/pairs.ts';
import { derivePairRules } from '../../../src/core/rules.ts';

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

  it('keeps the last phase while its reads fail for less than the grace, then counts the book as not open', async () => {
    let failing = false;
    const adapter = {
      readPairState: async () => {
        if (failing) throw new DltError('E_CHAIN_RPC', 'request to node failed: HTTP 503');
        return { phase: 1, open: true } as OnChainPairState;
      },
    } as unknown as ChainAdapter;
    const rest = { getTradeInfo: async () => ({ raw: {}, tradingStatus: 'CONTINUOUS_TRADING' }) };
    let now = 0;
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l).msg as string) });
    const s = new VenueStatus(binding, rest, adapter, logger, () => undefined, { now: () => now });
    await s.refreshPhase();
    failing = true;
    const seen: boolean[] = [];
    for (now = 1_000; now <= PHASE_READ_GRACE_MS + 2_000; now += 1_000) {
      await s.refreshPhase();
      seen.push(s.current.phaseOpen);
    }
    expect(seen.indexOf(false)).toBe(PHASE_READ_GRACE_MS / 1_000 - 1);
    expect(lines).toEqual(['chain A node failing']);
  });
});
