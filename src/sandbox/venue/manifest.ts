/**
 * The manifest a running sandbox writes (`.sandbox/manifest.json` by default): where everything is and how
 * to get in (URLs, API key, the token endpoint's client credentials and a fixed bearer token, participant
 * id, chain id, network passphrase), every pair with its id, symbols, contract addresses (chain B in both
 * forms) and fair-value facts (its price feed, its oracle, how a bond is quoted), and every test wallet with
 * its throwaway key and starting balances; `marketMaker` marks the one market-maker wallet per chain. The bot resolves
 * its pairs from here by chain, base symbol and quote symbol. Removed again when the sandbox stops.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PairFairValue } from '../../core/config/fair-value-config.ts';
import { CONTROL_PREFIX, WS_PATH } from '../api/http-server.ts';
import type { VenuePair } from '../api/venue-state.ts';
import type { ChannelAccount, SandboxWallet } from './deploy.ts';
import type { PairOracle } from './oracle-setup.ts';

export const MANIFEST_VERSION = 1;

export interface ManifestInput {
  readonly startedAt: string;
  readonly pid: number;
  readonly apiOrigin: string;
  readonly apiKey: string;
  readonly accessToken: string;
  /** The token endpoint's client credentials. */
  readonly oauth: {
    readonly tokenUrl: string;
    readonly clientId: string;
    readonly clientSecret: string;
    readonly expiresIn: number;
  };
  readonly participantId: string;
  readonly dateHeader: string;
  readonly evm: {
    readonly rpcUrl: string;
    readonly chainId: number;
    readonly registry: string;
    readonly commissionWallet: string;
    readonly blockTimeMs: number;
  };
  readonly wasm: {
    readonly rpcUrl: string;
    readonly friendbotUrl: string;
    readonly networkPassphrase: string;
    readonly registry: { readonly hex: string; readonly strkey: string };
    readonly ledgerIntervalMs: number;
  };
  readonly trading: { readonly mode: string; readonly clock: string };
  readonly pairs: readonly VenuePair[];
  /** Where each pair's oracle is. */
  readonly oracles: { oracleOf(pairId: string): PairOracle | undefined };
  readonly wallets: readonly SandboxWallet[];
  readonly channelAccounts: readonly ChannelAccount[];
  readonly flowEnabled: boolean;
}

export type Manifest = ReturnType<typeof buildManifest>;

export function buildManifest(m: ManifestInput) {
  const host = new URL(m.apiOrigin).host;
  return {
    version: MANIFEST_VERSION,
    startedAt: m.startedAt,
    pid: m.pid,
    venue: {
      restUrl: `${m.apiOrigin}/api/v1`,
      wsUrl: `ws://${host}${WS_PATH}`,
      wsHost: host,
      controlUrl: `${m.apiOrigin}/sandbox`,
      apiKey: m.apiKey,
      accessToken: m.accessToken,
      oauth: {
        tokenUrl: m.oauth.tokenUrl,
        clientId: m.oauth.clientId,
        clientSecret: m.oauth.clientSecret,
        expiresIn: m.oauth.expiresIn,
      },
      participantId: m.participantId,
      dateHeader: m.dateHeader,
    },
    chains: {
      evm: {
        rpcUrl: m.evm.rpcUrl,
        chainId: m.evm.chainId,
        registry: m.evm.registry,
        commissionWallet: m.evm.commissionWallet,
        blockTimeMs: m.evm.blockTimeMs,
      },
      wasm: {
        rpcUrl: m.wasm.rpcUrl,
        friendbotUrl: m.wasm.friendbotUrl,
        networkPassphrase: m.wasm.networkPassphrase,
        registry: m.wasm.registry,
        ledgerIntervalMs: m.wasm.ledgerIntervalMs,
      },
    },
    trading: { ...m.trading, flow: m.flowEnabled },
    pairs: m.pairs.map((p) => ({
      id: p.id,
      symbol: p.symbol,
      chain: p.chain,
      blockChain: p.record.blockChain,
      baseSymbol: p.record.baseTokenData?.symbol,
      quoteSymbol: p.record.quoteTokenSymbol,
      prefunded: p.prefunded,
      orderBook: p.addresses.orderBook,
      baseToken: p.addresses.base,
      quoteToken: p.addresses.quote,
      fairValue: pairFairValue(m.apiOrigin, p, m.oracles.oracleOf(p.id)),
    })),
    wallets: m.wallets
      .filter((w) => w.role === 'participant')
      .map((w) => ({
        name: w.name,
        chain: w.chain,
        address: w.address,
        key: w.key,
        marketMaker: w.marketMaker,
        participantId: m.participantId,
        pairIds: w.pairIds,
        balances: w.balances,
        ...(w.chain === 'wasm' && w.marketMaker ? { channelAccounts: m.channelAccounts } : {}),
      })),
    simulatedTraders: m.wallets
      .filter((w) => w.role === 'flow')
      .map((w) => ({ name: w.name, chain: w.chain, address: w.address })),
  };
}

/**
 * A pair's fair-value facts in the bot's shape (`pairFairValueSchema`): its price feed on the API origin (a
 * bond's feed also carries the yield), how a bond is quoted, and its oracle.
 */
export function pairFairValue(apiOrigin: string, p: VenuePair, oracle: PairOracle | undefined): PairFairValue {
  const feedUrl = `${apiOrigin}${CONTROL_PREFIX}/feeds/${encodeURIComponent(p.symbol)}`;
  const i = p.instrument;
  return {
    feedUrl,
    ...(i.kind === 'bond'
      ? {
          yieldFeedUrl: feedUrl,
          bond: { convention: i.convention ?? 'clean', nominalPerToken: i.nominalPerToken ?? '100' },
        }
      : {}),
    ...(oracle === undefined ? {} : { oracle }),
  };
}

/** Writes atomically, so a reader never sees half a manifest. */
export function writeManifest(path: string, manifest: Manifest): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Removes the manifest if it is still this sandbox's (another one may have written it since). */
export function removeManifest(path: string, manifest: Manifest): void {
  try {
    const current = JSON.parse(readFileSync(path, 'utf8')) as {
      startedAt?: unknown;
      pid?: unknown;
      venue?: { restUrl?: unknown };
    };
    if (
      current.startedAt === manifest.startedAt &&
      current.pid === manifest.pid &&
      current.venue?.restUrl === manifest.venue.restUrl
    )
      rmSync(path, { force: true });
  } catch {
    // Already gone or unreadable: nothing of ours to remove.
  }
}
