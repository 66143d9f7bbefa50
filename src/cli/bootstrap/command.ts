/**
 * The parts of a command that acts on (or reads) the live orders of a running bot's wallets: `orders`,
 * `cancel-all`, `inventory`. The configuration is checked whole first; then the venue's REST, its pairs, the
 * state file, and for a command that trades each wallet's adapter and order engine.
 */
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import { walletAddressOf } from '../../chains/keys.ts';
import { DltError } from '../../core/errors.ts';
import type { ChainKind } from '../../core/pair.ts';
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
export function restClientOf(connection: Connection, o: { logger: Logger; metrics: Metrics }): VenueRestClient {
  const v = connection.venue;
  const tokens = tokenSourceOf(v.auth, { logger: o.logger, metrics: o.metrics, timeoutMs: v.config.requestTimeoutMs });
  return new VenueRestClient(
    new RestTransport({
      baseUrl: v.config.restUrl,
      ...(tokens === undefined ? {} : { tokens }),
      timeoutMs: v.config.requestTimeoutMs,
      logger: o.logger,
      metrics: o.metrics,
    }),
  );
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
          walletOrders: (a) => rest.getWalletOrders(a),
          walletOrderHistory: (a, pairId) => rest.getWalletOrders(a, { onlyOpen: false, tradingPair: pairId }),
        },
        ensureReady: false,
      });
      closeWallets = opened.close;
      wallets = opened.wallets.map((w) => ({
        id: w.id,
        chain: w.chain,
        address: w.adapter.wallet,
        pairs: w.pairs.map((p) => p.binding),
        adapter: w.adapter,
        engine: w.engine,
      }));
    } else {
      wallets = [];
      for (const w of connection.wallets) {
        const pairs = walletPairs(listed, w, setup.config).map((p) => p.binding);
        if (pairs.length > 0)
          wallets.push({
            id: w.id,
            chain: w.chain,
            address: await walletAddressOf(w.chain, w.key),
            pairs,
            adapter: null,
            engine: null,
          });
      }
    }
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
      const open = await Promise.all(wallets.map(async (w) => ({ w, open: (await w.engine?.drain(drainMs)) ?? [] })));
      for (const { w, open: txs } of open) {
        for (const t of txs)
          io.stderr(
            `${w.id}: transaction ${t.txHash} (${t.kind}) not decided by the chain yet; the next start settles it\n`,
          );
      }
      await closeWallets?.();
      store.close();
    },
  };
}
