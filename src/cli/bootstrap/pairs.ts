/**
 * The one rule that ties a configured pairs entry to a pair the venue lists, and the binding a wallet trades
 * it with: the entry of the same wallet whose chain, base symbol and quote symbol are the pair's.
 */
import type { PairBinding } from '../../chains/types.ts';
import { contractAddressOf } from '../../chains/keys.ts';
import type { BotConfig, PairConfig } from '../../core/config/bot-config.ts';
import { DltError } from '../../core/errors.ts';
import { chainKindOf, resolvePair, type TradingPair } from '../../core/pair.ts';
import { derivePairRules } from '../../core/rules.ts';
import type { WalletSetup } from './connection.ts';

/** The pairs entry of `walletId` that configures the listed `pair` (enabled or not), if any. */
export function configuredEntry(
  pairs: readonly PairConfig[],
  walletId: string,
  pair: TradingPair,
): PairConfig | undefined {
  const chain = pair.blockChain === undefined ? null : chainKindOf(pair.blockChain);
  return pairs.find(
    (p) =>
      p.wallet === walletId &&
      chainKindOf(p.blockChain) === chain &&
      p.base === pair.baseTokenData?.symbol &&
      p.quote === pair.quoteTokenSymbol,
  );
}

/** The pair as the engine trades it, with the entry's overrides (tick, minimum size, value margin). */
export function bindingOf(pair: TradingPair, entry: PairConfig | undefined): PairBinding {
  const rules = derivePairRules(
    pair,
    entry === undefined
      ? {}
      : {
          ...(entry.tick === undefined ? {} : { tick: entry.tick }),
          ...(entry.minimumSize === undefined ? {} : { minimumSize: entry.minimumSize }),
          valueMarginBps: entry.valueMarginBps,
        },
  );
  return {
    pairId: pair.id,
    symbol: pair.symbol ?? pair.id,
    chain: rules.chain,
    orderBook: contractAddressOf(rules.chain, pair.smartContractOrderBook),
    baseToken: contractAddressOf(rules.chain, pair.smartContractBase),
    quoteToken: contractAddressOf(rules.chain, pair.smartContractQuote),
    rules,
  };
}

export interface WalletPair {
  readonly pair: TradingPair;
  readonly binding: PairBinding;
  /** Its pairs entry; undefined for a sandbox pair the configuration does not name. */
  readonly entry: PairConfig | undefined;
}

/**
 * The pairs a wallet trades, looked up in the venue's list: E_PAIR_NOT_FOUND names one that is not listed on
 * the wallet's chain. A pair whose entry is disabled is not traded (a sandbox manifest lists every pair).
 */
export function walletPairs(listed: readonly TradingPair[], wallet: WalletSetup, config: BotConfig): WalletPair[] {
  return wallet.pairs
    .map((q) => {
      const p =
        'id' in q
          ? listed.find((x) => x.id === q.id)
          : resolvePair(listed, { blockChain: q.blockChain, baseSymbol: q.base, quoteSymbol: q.quote });
      if (p === undefined || p.blockChain === undefined || chainKindOf(p.blockChain) !== wallet.chain) {
        throw new DltError(
          'E_PAIR_NOT_FOUND',
          `wallet ${wallet.id}: pair ${JSON.stringify(q)} is not listed on ${wallet.chain}`,
          { details: { wallet: wallet.id } },
        );
      }
      const entry = configuredEntry(config.pairs, wallet.id, p);
      return { pair: p, binding: bindingOf(p, entry), entry };
    })
    .filter(({ entry }) => entry?.enabled !== false);
}
