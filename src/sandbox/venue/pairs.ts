/**
 * The venue's pair records after deployment: the definition with the contract addresses (chain B as the
 * hex of the 32-byte contract id, the specification's ChainAddress; the strkey kept beside it), creation
 * dates, scales, the instrument seed, an empty market and the status before the scheduler's first word.
 */
import { parseDecimalString } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { pairScales, type TradingPair } from '../../core/pair.ts';
import { PairMarket } from '../api/market.ts';
import type { ChainAddresses, VenuePair } from '../api/venue-state.ts';
import { completePair } from '../evm/pair-params.ts';
import type { SandboxPairDefinition } from './default-pairs.ts';
import type { DeployedSandbox } from './deploy.ts';

export function venuePairs(
  defs: readonly SandboxPairDefinition[],
  deployed: DeployedSandbox,
  nowMs: number,
): VenuePair[] {
  const created = new Date(nowMs).toISOString();
  return defs.map((def) => {
    let addresses: { orderBook: ChainAddresses; base: ChainAddresses; quote: ChainAddresses };
    if (def.chain === 'evm') {
      const d = deployed.evmPairs.get(def.pair.id);
      if (d === undefined)
        throw new DltError('E_SANDBOX', `pair ${def.pair.id} was not deployed`, { details: { part: 'deploy' } });
      addresses = { orderBook: { hex: d.orderBook }, base: { hex: d.baseToken }, quote: { hex: d.quoteToken } };
    } else {
      const d = deployed.wasmBooks.get(def.pair.id);
      if (d === undefined)
        throw new DltError('E_SANDBOX', `pair ${def.pair.id} was not deployed`, { details: { part: 'deploy' } });
      addresses = { orderBook: d.addresses.orderBook, base: d.addresses.base, quote: d.addresses.quote };
    }
    const record: TradingPair = {
      ...completePair(def.pair, {
        orderBook: addresses.orderBook.hex,
        base: addresses.base.hex,
        quote: addresses.quote.hex,
      }),
      creationDate: created,
      modificationDate: created,
    };
    return {
      id: def.pair.id,
      symbol: def.pair.symbol,
      chain: def.chain,
      prefunded: def.chain === 'evm' ? true : def.prefunded,
      record,
      scales: pairScales(record),
      instrument: def.instrument,
      overrides: def.overrides ?? {},
      addresses,
      market: new PairMarket(def.pair.id),
      status: {
        tradingStatus: 'OUT_OF_TRADING',
        statusChangeReason: 'TRADING_PAIR_CREATION',
        changedAtMs: nowMs,
        phase: 'open',
        staticReferencePrice: parseDecimalString(def.pair.staticReferencePrice, `${def.pair.id}.staticReferencePrice`),
        tradingHaltCounter: 0,
      },
    };
  });
}
