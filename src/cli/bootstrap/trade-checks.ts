/**
 * Each trading wallet's trade reconciliation: the venue's list of the wallet's trades against the fills the
 * engine attributed from the chain (engine/wallet/trades/), run by the bot every `engine.tradeCheckMs`.
 */
import type { Clock } from '../../core/clock.ts';
import type { WalletTradeCheck } from '../../engine/loop/bot-routines.ts';
import { TradeCheck, type WalletTradesSource } from '../../engine/wallet/trades/trade-check.ts';
import type { Store } from '../../store/store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { TradingWallet } from './wallets.ts';

export function tradeChecksOf(
  wallets: readonly TradingWallet[],
  o: {
    readonly source: WalletTradesSource;
    readonly store: Store;
    readonly graceMs: number;
    readonly clock: Clock;
    readonly logger: Logger;
    readonly metrics: Metrics;
  },
): WalletTradeCheck[] {
  const logger = o.logger.child({ component: 'trades' });
  return wallets.map((w) => {
    const scales = new Map(w.pairs.map((p) => [p.binding.pairId, p.binding.rules.scales]));
    const check = new TradeCheck({
      wallet: w.adapter.wallet,
      chain: w.chain,
      source: o.source,
      orders: o.store.orders,
      scales: (id) => scales.get(id),
      graceMs: o.graceMs,
      clock: o.clock,
      logger,
      metrics: o.metrics,
    });
    return { engine: w.engine, check: () => check.check() };
  });
}
