/** A pair loop's balance cache, whose every read also reports the wallet's native fee balance. */
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import { Decimal } from '../../core/decimal.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { RiskMonitor } from '../risk/monitor.ts';
import { BalanceCache } from './balance-cache.ts';
import { recordNative, type LoopMetrics } from './loop-metrics.ts';

export function pairBalances(
  o: {
    readonly runtime: { readonly binding: PairBinding };
    readonly engine: { readonly wallet: string };
    readonly adapter: Pick<ChainAdapter, 'readBalances' | 'nativeDecimals'>;
    readonly risk: Pick<RiskMonitor, 'nativeBalance'>;
    readonly limits: () => Pick<RiskLimits, 'nativeAlert'>;
    readonly metrics: LoopMetrics;
    readonly balanceMaxAgeMs: number;
    readonly clock: Clock;
    readonly logger: Logger;
  },
  key: string,
): BalanceCache {
  const labels = { chain: o.runtime.binding.chain, wallet: o.engine.wallet };
  return new BalanceCache({
    read: () => o.adapter.readBalances(o.runtime.binding),
    onRead: (v) => {
      const native = new Decimal(v.native.toString()).div(new Decimal(10).pow(o.adapter.nativeDecimals));
      recordNative(o.metrics, labels, native, o.limits().nativeAlert);
      o.risk.nativeBalance(o.engine.wallet, native);
    },
    maxAgeMs: o.balanceMaxAgeMs,
    clock: o.clock,
    logger: o.logger,
    pairId: key,
  });
}
