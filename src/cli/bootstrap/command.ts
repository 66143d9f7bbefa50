/**
 * The parts of a command that acts on (or reads) the live orders of a running bot's wallets: `orders`,
 * `cancel-all`, `inventory`. The configuration is checked whole first; then the venue's REST, its pairs, the
 * state file, and for a command that trades each wallet's adapter and order engine.
 */
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import { walletAddressOf } from '../../chains/keys.ts';
import type { BotConfig } from '../../core/config/bot-config.ts';
import { DltError } from '../../core/errors.ts';
import type { ChainKind, TradingPair } from '../../core/pair.ts';
import { systemClock } from '../../core/system-clock.ts';
import type { WalletEngine } from '../../engine/wallet/wallet-engine.ts';
import { openStore, openStoreReadOnly, type Store } from '../../store/store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import { tokenSourceOf } from '../../venue/auth/venue-auth.ts';
import { VenueRestClient } from '../../venue/rest-client.ts';
import { RestTransport } from '../../venue/rest-transport.ts';
import type { CliIo } from '../io.ts';
import { connectionOf, type Connection } from './connection.ts';
import { walletPairs } from './pairs.ts';
import { checkedSetup } from './setup.ts';
import { openTradingWallets } from './wallets.ts';

export interface CommandWallet {
  readonly id: string;
  readonly chain: ChainKind;
  readonly address: string;
  readonly pairs: readonly PairBinding[];
  /** Null when the command reads only. */
  readonly adapter: ChainAdapter | null;
  readonly engine: WalletEngine | null;
}

export interface CommandParts {
  readonly store: Store;
  readonly rest: VenueRestClient;
  readonly wallets: readonly CommandWallet[];
  /**
   * Waits (at most `drainMs`, default 30 s) for every outcome the command sent to settle, naming on stderr what
   * is still open, then closes the engines, the adapters and the store.
   */
  close(drainMs?: number): Promise<void>;
}

export interface CommandOptions {
  /** Build chain adapters and order engines (false: the store and REST only, the store read-only). */
  readonly trade: boolean;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** The venue's REST client of a command, with the connection's bearer tokens. */
export function restClientOf(connection: Connection, options: { logger: Logger; metrics: Metrics }): VenueRestClient {
  const venue = connection.venue;
  const tokens = tokenSourceOf(venue.auth, {
    logger: options.logger,
    metrics: options.metrics,
    timeoutMs: venue.config.requestTimeoutMs,
  });
  return new VenueRestClient(
    new RestTransport({
      baseUrl: venue.config.restUrl,
      ...(tokens === undefined ? {} : { tokens }),
      timeoutMs: venue.config.requestTimeoutMs,
      logger: options.logger,
      metrics: options.metrics,
    }),
  );
}

/** The configured wallets that trade a listed pair, for a command that only reads (no adapter, no engine). */
async function readingWallets(
  connection: Connection,
  listed: readonly TradingPair[],
  config: BotConfig,
): Promise<CommandWallet[]> {
  const wallets: CommandWallet[] = [];
  for (const wallet of connection.wallets) {
    const pairs = walletPairs(listed, wallet, config).map((pair) => pair.binding);
    if (pairs.length > 0)
      wallets.push({
        id: wallet.id,
        chain: wallet.chain,
        address: await walletAddressOf(wallet.chain, wallet.key),
        pairs,
        adapter: null,
        engine: null,
      });
  }
  return wallets;
}

export async function commandParts(source: string, io: CliIo, options: CommandOptions): Promise<CommandParts> {
  const setup = checkedSetup(source, io, { strategies: false });
  if (setup.embedded) {
    throw new DltError(
      'E_USAGE',
      'orders and cancel-all act on a running venue: point sandbox.manifest at a running sandbox, or configure venue, chains and wallets',
    );
  }
  const connection = connectionOf(setup, setup.manifest);
  const rest = restClientOf(connection, options);
  const listed = await rest.listTradingPairs();
  const store = options.trade
    ? openStore(setup.statePath, systemClock.now, { clock: systemClock })
    : openStoreReadOnly(setup.statePath);
  let wallets: CommandWallet[];
  let closeWallets: (() => Promise<void>) | null = null;
  try {
    if (options.trade) {
      const opened = await openTradingWallets({
        config: setup.config,
        connection,
        listed,
        store,
        logger: options.logger,
        metrics: options.metrics,
        clock: systemClock,
        rest: {
          walletOrders: (address) => rest.getWalletOrders(address),
          walletOrderHistory: (address, pairId) =>
            rest.getWalletOrders(address, { onlyOpen: false, tradingPair: pairId }),
        },
        ensureReady: false,
      });
      closeWallets = opened.close;
      wallets = opened.wallets.map((wallet) => ({
        id: wallet.id,
        chain: wallet.chain,
        address: wallet.adapter.wallet,
        pairs: wallet.pairs.map((pair) => pair.binding),
        adapter: wallet.adapter,
        engine: wallet.engine,
      }));
    } else wallets = await readingWallets(connection, listed, setup.config);
  } catch (e) {
    store.close();
    throw e;
  }
  return {
    store,
    rest,
    wallets,
    close: async (drainMs = 30_000) => {
      // An adapter closed with an outcome open leaves it unknown: every transaction sent is waited for first.
      const open = await Promise.all(
        wallets.map(async (wallet) => ({ wallet, open: (await wallet.engine?.drain(drainMs)) ?? [] })),
      );
      for (const { wallet, open: transactions } of open) {
        for (const transaction of transactions)
          io.stderr(
            `${wallet.id}: transaction ${transaction.txHash} (${transaction.kind}) not decided by the chain yet; the next start settles it\n`,
          );
      }
      await closeWallets?.();
      store.close();
    },
  };
}
