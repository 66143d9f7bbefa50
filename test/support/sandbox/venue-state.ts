/** A sandbox venue state holding the first default pair on a chain A address set, fed by hand (no chains). */
import { Decimal } from '../../../src/core/decimal.ts';
import { pairScales } from '../../../src/core/pair.ts';
import { PairMarket } from '../../../src/sandbox/api/market.ts';
import { VenueState, type PairStatus, type ParticipantWallet } from '../../../src/sandbox/api/venue-state.ts';
import { completePair } from '../../../src/sandbox/evm/pair-params.ts';
import { DEFAULT_PAIRS } from '../../../src/sandbox/venue/default-pairs.ts';

export const FIRST_PAIR = DEFAULT_PAIRS[0] as (typeof DEFAULT_PAIRS)[number];

export function firstPairState(
  tradingStatus: PairStatus['tradingStatus'],
  statusChangeReason: PairStatus['statusChangeReason'],
  wallets: readonly ParticipantWallet[] = [],
): { state: VenueState; market: PairMarket; record: ReturnType<typeof completePair> } {
  const def = FIRST_PAIR;
  const record = completePair(def.pair);
  const market = new PairMarket(def.pair.id);
  const state = new VenueState({ participantId: 'P', wallets, orderLagMs: 0 });
  state.addPair({
    id: def.pair.id,
    symbol: def.pair.symbol,
    chain: 'evm',
    prefunded: true,
    record,
    scales: pairScales(record),
    instrument: def.instrument,
    overrides: {},
    addresses: { orderBook: { hex: '0x01' }, base: { hex: '0x02' }, quote: { hex: '0x03' } },
    market,
    status: {
      tradingStatus,
      statusChangeReason,
      changedAtMs: 0,
      phase: 'open',
      staticReferencePrice: new Decimal(100),
      tradingHaltCounter: 0,
    },
  });
  return { state, market, record };
}
