/**
 * A pair loop's balance cache: its view of the balances of its wallet, read once for all the wallet's pairs
 * (wallet-balances.ts), whose every read also reports the wallet's native fee balance.
 */
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import { Decimal } from '../../core/decimal.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { RiskMonitor } from '../risk/monitor.ts';
import { BalanceCache } from './balance-cache.ts';
import { recordNative, type LoopMetrics } from './loop-metrics.ts';
import { WalletBalanceCache } from './wallet-balances.ts';

/**
 * The shared balances of each adapter: the loops of a wallet on a chain are built with the same adapter. A
 * cache every loop of which stopped is replaced by the next loop built.
 */
const shared = new WeakMap<object, WalletBalanceCache>();

export function pairBalances(
  o: {
    readonly runtime: { readonly binding: PairBinding };
    readonly engine: { readonly wallet: string };
    readonly adapter: Pick<ChainAdapter, 'readBalances' | 'readWalletBalances' | 'nativeDecimals'>;
    readonly risk: Pick<RiskMonitor, 'nativeBalance'>;
    readonly limits: () => Pick<RiskLimits, 'nativeAlert'>;
    readonly metrics: LoopMetrics;
    readonly balanceMaxAgeMs: number;
    readonly clock: Clock;
    readonly logger: Logger;
  },
  _key: string,
): BalanceCache {
  let wallet = shared.get(o.adapter);
  if (wallet === undefined || wallet.stopped) {
    const labels = { chain: o.runtime.binding.chain, wallet: o.engine.wallet };
    wallet = new WalletBalanceCache({
      adapter: o.adapter,
      onRead: (v) => {
        const native = new Decimal(v.native.toString()).div(new Decimal(10).pow(o.adapter.nativeDecimals));
        recordNative(o.metrics, labels, native, o.limits().nativeAlert);
        o.risk.nativeBalance(o.engine.wallet, native);
      },
      maxAgeMs: o.balanceMaxAgeMs,
      clock: o.clock,
      logger: o.logger,
      wallet: o.engine.wallet,
    });
    shared.set(o.adapter, wallet);
  }
  return new BalanceCache({ wallet, pair: o.runtime.binding, maxAgeMs: o.balanceMaxAgeMs });
}
