/**
 * The trading wallets of every command: for each configured (or sandbox) wallet its pairs as the venue lists
 * them, its chain adapter and its order engine, built the same way for `dlt-mm run` and the commands that act
 * on live orders. A failure closes what was built.
 */
import type { ChainAdapter } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import type { BotConfig } from '../../core/config/bot-config.ts';
import type { ChainKind, TradingPair } from '../../core/pair.ts';
import type { VenueOrders } from '../../engine/wallet/recovery/reconciler.ts';
import { createWalletEngine } from '../../engine/wallet/assemble.ts';
import type { WalletEngine } from '../../engine/wallet/wallet-engine.ts';
import type { Store } from '../../store/store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import { adapterOf, tuningOf } from './adapters.ts';
import type { ReportingData } from '../../core/encoding/reporting.ts';
import type { Connection } from './connection.ts';
import { walletPairs, type WalletPair } from './pairs.ts';
import { checkWalletStatus, type WalletStatusSource } from './wallet-status.ts';

export interface TradingWallet {
  readonly id: string;
  readonly chain: ChainKind;
  readonly marketMaker: boolean;
  readonly pairs: readonly WalletPair[];
  readonly adapter: ChainAdapter;
  readonly engine: WalletEngine;
}

export interface WalletOptions {
  readonly config: BotConfig;
  readonly connection: Connection;
  /** The venue's trading pairs. */
  readonly listed: readonly TradingPair[];
  readonly store: Store;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  /** The venue's open-order lists, which reconciliation compares with the chain. */
  readonly rest: VenueOrders;
  /** Wallet prerequisites checked before the engine is built (a trading bot: yes; a one-off command: no). */
  readonly ensureReady: boolean;
  /** The wallet's record at the venue, checked before anything else (a trading bot). */
  readonly walletStatus?: WalletStatusSource;
}

/** `[ownerReportingId, decisionReportingId]` of the configuration as the encoder takes them. */
function reportingOf([owner, decision]: readonly [number, number]): ReportingData {
  return { a: owner, b: decision, free: 0n };
}

/**
 * Every wallet that trades at least one pair, opened side by side (each waits on its own chain); the adapters
 * and engines built are closed by `close`. When one cannot open, those that did are closed and the first
 * failure (in the configuration's order) is thrown.
 */
export async function openTradingWallets(
  o: WalletOptions,
): Promise<{ readonly wallets: readonly TradingWallet[]; close(): Promise<void> }> {
  const wallets: TradingWallet[] = [];
  const close = async () => {
    for (const w of wallets.splice(0).toReversed()) {
      await w.engine.stop().catch(() => undefined);
      await w.adapter.close().catch(() => undefined);
    }
  };
  const trading = o.connection.wallets
    .map((w) => ({ w, pairs: walletPairs(o.listed, w, o.config) }))
    .filter((x) => x.pairs.length > 0);
  const opened = await Promise.allSettled(trading.map(({ w, pairs }) => openWallet(o, w, pairs)));
  for (const r of opened) if (r.status === 'fulfilled') wallets.push(r.value);
  const failed = opened.find((r) => r.status === 'rejected');
  if (failed !== undefined) {
    await close();
    throw failed.reason;
  }
  return { wallets, close };
}

async function openWallet(
  o: WalletOptions,
  w: WalletOptions['connection']['wallets'][number],
  pairs: readonly WalletPair[],
): Promise<TradingWallet> {
  const adapter = adapterOf(w, o.connection, o, tuningOf(o.config, o.connection, pairs));
  try {
    const record = { id: w.id, address: adapter.wallet, marketMaker: w.marketMaker };
    if (o.walletStatus !== undefined) await checkWalletStatus(o.walletStatus, record, o.logger);
    if (o.ensureReady) await Promise.all(pairs.map((p) => adapter.ensureReady(p.binding)));
    const engine = await createWalletEngine({
      adapter,
      pairs: pairs.map((p) => p.binding),
      store: o.store,
      marketMaker: w.marketMaker,
      logger: o.logger,
      metrics: o.metrics,
      clock: o.clock,
      crossIdTag: o.config.engine.crossIdTag,
      reporting: new Map(
        pairs.map((p) => [p.binding.pairId, reportingOf(p.entry?.reporting ?? o.config.engine.reporting)]),
      ),
      rest: o.rest,
    });
    return { id: w.id, chain: w.chain, marketMaker: w.marketMaker, pairs, adapter, engine };
  } catch (e) {
    await adapter.close().catch(() => undefined);
    throw e;
  }
}
