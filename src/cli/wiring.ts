/**
 * Builds the bot's parts from its configuration, for the commands that act on live orders: where the venue
 * and the chains are (the configuration and its secrets, or a running sandbox's manifest), the trading pairs
 * resolved from REST by chain, base and quote symbol, the state store, and for each wallet its chain adapter
 * and order engine. This is the seed of the composition root of `dlt-mm run`.
 */
import { dirname, resolve } from 'node:path';
import { StrKey, Keypair } from '@stellar/stellar-sdk';
import { EvmAdapter } from '../chains/evm/evm-adapter.ts';
import type { ChainAdapter, PairBinding } from '../chains/types.ts';
import { WasmChainAdapter } from '../chains/wasm/wasm-adapter.ts';
import { parseBotConfig, readSecret, type ConfigEnvironment } from '../core/config/load.ts';
import type { BotConfig } from '../core/config/bot-config.ts';
import { DltError } from '../core/errors.ts';
import { chainKindOf, resolvePair, type ChainKind, type TradingPair } from '../core/pair.ts';
import { derivePairRules } from '../core/rules.ts';
import { WalletEngine } from '../engine/wallet/wallet-engine.ts';
import { openStore, openStoreReadOnly, type Store } from '../store/store.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import { VenueRestClient } from '../venue/rest-client.ts';
import { RestTransport } from '../venue/rest-transport.ts';
import { tokenSourceOf, venueAuthOf, type VenueAuth } from '../venue/auth/venue-auth.ts';
import type { CliIo } from './io.ts';
import { systemClock } from '../core/system-clock.ts';

export interface WalletSetup {
  readonly id: string;
  readonly chain: ChainKind;
  readonly key: string;
  readonly channels: readonly string[];
  readonly marketMaker: boolean;
  /** Pairs from the configuration (blockChain, base, quote), or pair ids a sandbox manifest assigns. */
  readonly pairs: ReadonlyArray<{ readonly blockChain: BotConfig['pairs'][number]['blockChain']; readonly base: string; readonly quote: string } | { readonly id: string }>;
}

export interface Connection {
  readonly restUrl: string;
  /** Bearer tokens of the participant endpoints. */
  readonly auth: VenueAuth | undefined;
  readonly timeoutMs: number;
  readonly evm?: { readonly rpcUrl: string; readonly chainId: number };
  readonly wasm?: { readonly rpcUrl: string; readonly networkPassphrase: string };
  readonly wallets: readonly WalletSetup[];
}

export interface WiredWallet {
  readonly id: string;
  readonly chain: ChainKind;
  readonly address: string;
  readonly pairs: readonly PairBinding[];
  /** Null when the command reads only. */
  readonly adapter: ChainAdapter | null;
  readonly engine: WalletEngine | null;
}

export interface Wiring {
  readonly store: Store;
  readonly rest: VenueRestClient;
  readonly wallets: readonly WiredWallet[];
  /**
   * Waits (at most `drainMs`, default 30 s) for every outcome the commands sent to settle, naming on stderr
   * what is still open, then closes the engines, the adapters and the store.
   */
  close(drainMs?: number): Promise<void>;
}

interface ManifestLike {
  venue: { restUrl: string; accessToken: string; oauth?: { tokenUrl: string; clientId: string; clientSecret: string } };
  chains: { evm?: { rpcUrl: string; chainId: number }; wasm?: { rpcUrl: string; networkPassphrase: string } };
  wallets: Array<{ name: string; chain: ChainKind; key: string; marketMaker: boolean; pairIds: string[]; channelAccounts?: Array<{ secret: string }> }>;
}

/** Where everything is: a sandbox manifest, or the configuration with its secrets read. */
export function connectionOf(config: BotConfig, configPath: string, io: CliIo): Connection {
  const dir = dirname(configPath);
  const env: ConfigEnvironment = { env: io.env, readFile: (p) => io.readFile(resolve(dir, p)) };
  const configured = config.pairs.filter((p) => p.enabled);
  const walletsOf = () =>
    config.wallets.map((w, i) => ({
      id: w.id,
      chain: w.chain,
      key: readSecret(w.key, `wallets.${i}.key`, env),
      channels: w.channelAccounts.map((c, j) => readSecret(c, `wallets.${i}.channelAccounts.${j}`, env)),
      marketMaker: w.marketMaker,
      pairs: configured.filter((p) => p.wallet === w.id).map((p) => ({ blockChain: p.blockChain, base: p.base, quote: p.quote })),
    }));
  if (config.sandbox?.manifest !== undefined) {
    const m = JSON.parse(io.readFile(resolve(dir, config.sandbox.manifest))) as ManifestLike;
    const wallets =
      config.wallets.length > 0
        ? walletsOf()
        : m.wallets
            .filter((w) => w.marketMaker)
            .map((w) => ({ id: w.name, chain: w.chain, key: w.key, channels: (w.channelAccounts ?? []).map((c) => c.secret), marketMaker: true, pairs: w.pairIds.map((id) => ({ id })) }));
    return { restUrl: m.venue.restUrl, auth: manifestAuth(m.venue), timeoutMs: 10_000, ...m.chains, wallets };
  }
  if (config.sandbox?.embedded === true || config.venue === undefined) {
    throw new DltError('E_USAGE', 'orders and cancel-all act on a running venue: point sandbox.manifest at a running sandbox, or configure venue, chains and wallets');
  }
  const evm = config.chains.evm;
  const wasm = config.chains.wasm;
  return {
    restUrl: config.venue.restUrl,
    auth: venueAuthOf(config.venue, (ref, where) => readSecret(ref, where, env)),
    timeoutMs: config.venue.requestTimeoutMs,
    ...(evm === undefined ? {} : { evm: { rpcUrl: evm.rpcUrl, chainId: evm.chainId } }),
    ...(wasm === undefined ? {} : { wasm: { rpcUrl: wasm.rpcUrl, networkPassphrase: wasm.networkPassphrase } }),
    wallets: walletsOf(),
  };
}

/** A sandbox's participant authentication: its client credentials when it issues tokens, else its fixed token. */
export function manifestAuth(venue: ManifestLike['venue']): VenueAuth {
  const o = venue.oauth;
  return o === undefined ? { kind: 'static', token: venue.accessToken } : { kind: 'client-credentials', tokenUrl: o.tokenUrl, clientId: o.clientId, clientSecret: o.clientSecret };
}

/** A chain B contract as the adapter names it: REST serves the hex of the contract id. */
function contractAddress(chain: ChainKind, address: string): string {
  if (chain === 'evm' || address.startsWith('C')) return address;
  return StrKey.encodeContract(Buffer.from(address.replace(/^0x/, ''), 'hex'));
}

export function bindingOf(pair: TradingPair, config: BotConfig): PairBinding {
  // The operator's overrides of the pair (tick, minimum size, value margin), when the configuration names it.
  const chain = pair.blockChain === undefined ? null : chainKindOf(pair.blockChain);
  const configured = config.pairs.find((p) => p.base === pair.baseTokenData?.symbol && p.quote === pair.quoteTokenSymbol && chainKindOf(p.blockChain) === chain);
  const rules = derivePairRules(pair, configured === undefined ? {} : { ...(configured.tick === undefined ? {} : { tick: configured.tick }), ...(configured.minimumSize === undefined ? {} : { minimumSize: configured.minimumSize }), valueMarginBps: configured.valueMarginBps });
  return {
    pairId: pair.id,
    symbol: pair.symbol ?? pair.id,
    chain: rules.chain,
    orderBook: contractAddress(rules.chain, pair.smartContractOrderBook),
    baseToken: contractAddress(rules.chain, pair.smartContractBase),
    quoteToken: contractAddress(rules.chain, pair.smartContractQuote),
    rules,
  };
}

/** Runs a command line parser; its complaint (unknown option, missing value) becomes a usage error. */
export function usageArgs<T>(parse: () => T, usage: string): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof TypeError) throw new DltError('E_USAGE', `${e.message}\n${usage}`);
    throw e;
  }
}

export interface WireOptions {
  /** Build chain adapters and order engines (false: the store and REST only, the store read-only). */
  readonly trade: boolean;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export async function wire(configPath: string, io: CliIo, options: WireOptions): Promise<Wiring> {
  const path = resolve(io.cwd, configPath);
  let text: string;
  try {
    text = io.readFile(path);
  } catch (cause) {
    throw new DltError('E_CONFIG_READ', `${configPath}: cannot be read (${(cause as Error).message})`, { cause, details: { path } });
  }
  const config = parseBotConfig(text, configPath);
  const c = connectionOf(config, path, io);
  const tokens = tokenSourceOf(c.auth, { logger: options.logger, metrics: options.metrics, timeoutMs: c.timeoutMs });
  const rest = new VenueRestClient(new RestTransport({ baseUrl: c.restUrl, ...(tokens === undefined ? {} : { tokens }), timeoutMs: c.timeoutMs, logger: options.logger, metrics: options.metrics }));
  const listed = await rest.listTradingPairs();
  const storePath = resolve(dirname(path), config.store.path);
  const store = options.trade ? openStore(storePath) : openStoreReadOnly(storePath);
  const wallets: WiredWallet[] = [];
  try {
    for (const w of c.wallets) {
      const pairs = w.pairs.map((q) => {
        const p = 'id' in q ? listed.find((x) => x.id === q.id) : resolvePair(listed, { blockChain: q.blockChain, baseSymbol: q.base, quoteSymbol: q.quote });
        if (p === undefined || p.blockChain === undefined || chainKindOf(p.blockChain) !== w.chain) {
          throw new DltError('E_PAIR_NOT_FOUND', `wallet ${w.id}: pair ${JSON.stringify(q)} is not listed on ${w.chain}`, { details: { wallet: w.id } });
        }
        return bindingOf(p, config);
      });
      // Followed with the confirmation depth the bot uses, so that a command sees the chain as the bot does.
      const tuning: AdapterTuning = { evmConfirmations: config.sandbox?.manifest !== undefined ? 1 : (config.chains.evm?.confirmations ?? 2) };
      const adapter = options.trade ? adapterOf(w, c, store, options, tuning) : null;
      const address = adapter?.wallet ?? (w.chain === 'evm' ? new (await import('ethers')).Wallet(w.key).address : Keypair.fromSecret(w.key).publicKey());
      const engine =
        adapter === null
          ? null
          : await WalletEngine.create({
              adapter,
              pairs,
              store,
              marketMaker: w.marketMaker,
              logger: options.logger,
              metrics: options.metrics,
              clock: systemClock,
              rest: { walletOrders: (a) => rest.getWalletOrders(a) },
            });
      wallets.push({ id: w.id, chain: w.chain, address, pairs, adapter, engine });
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
        for (const t of txs) io.stderr(`${w.id}: transaction ${t.txHash} (${t.kind}) not decided by the chain yet; the next start settles it\n`);
      }
      for (const w of wallets) {
        await w.engine?.stop();
        await w.adapter?.close();
      }
      store.close();
    },
  };
}

export interface AdapterTuning {
  /** Chain A blocks on top before an event is final (the local sandbox does not reorganise: 1 is enough). */
  readonly evmConfirmations?: number;
  /** Chain A cap on the EIP-1559 max fee per gas, wei. */
  readonly maxFeePerGasCap?: bigint;
  /** Chain B approval lifetime, ledgers. */
  readonly approvalLedgers?: number;
  /** Allowance kept approved beyond the next order, per pair id and token, native units. */
  readonly budgets?: Readonly<Record<string, Partial<Record<'base' | 'quote', bigint>>>>;
}

export function adapterOf(w: WalletSetup, c: Connection, store: Store, o: Pick<WireOptions, 'logger' | 'metrics'>, tuning: AdapterTuning = {}): ChainAdapter {
  if (w.chain === 'evm') {
    if (c.evm === undefined) throw new DltError('E_CONFIG_INVALID', `wallet ${w.id}: chains.evm is not configured`);
    return new EvmAdapter({
      rpcUrl: c.evm.rpcUrl,
      chainId: BigInt(c.evm.chainId),
      privateKey: w.key,
      journal: store.transactions,
      state: store.state,
      logger: o.logger,
      metrics: o.metrics,
      ...(tuning.evmConfirmations === undefined ? {} : { follower: { confirmations: tuning.evmConfirmations } }),
      ...(tuning.maxFeePerGasCap === undefined ? {} : { fees: { maxFeePerGasCap: tuning.maxFeePerGasCap } }),
      ...(tuning.budgets === undefined ? {} : { approvals: { budgets: tuning.budgets } }),
    });
  }
  if (c.wasm === undefined) throw new DltError('E_CONFIG_INVALID', `wallet ${w.id}: chains.wasm is not configured`);
  return new WasmChainAdapter({
    rpcUrl: c.wasm.rpcUrl,
    networkPassphrase: c.wasm.networkPassphrase,
    tradingKey: Keypair.fromSecret(w.key),
    channelKeys: w.channels.map((s) => Keypair.fromSecret(s)),
    journal: store.transactions,
    state: store.state,
    logger: o.logger,
    metrics: o.metrics,
    ...(tuning.approvalLedgers === undefined && tuning.budgets === undefined
      ? {}
      : {
          approvals: {
            ...(tuning.approvalLedgers === undefined ? {} : { lifetimeLedgers: tuning.approvalLedgers }),
            ...(tuning.budgets === undefined ? {} : { budgets: tuning.budgets }),
          },
        }),
  });
}
