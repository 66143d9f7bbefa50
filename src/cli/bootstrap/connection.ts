/**
 * Where everything is, for every command: the venue (its REST and market-data endpoints and credentials), the
 * chains' endpoints, and the trading wallets with the pairs they trade. From a sandbox's manifest (a running
 * one, or the embedded one just started) or from the configuration with its secrets read.
 */
import type { PairConfig } from '../../core/config/bot-config.ts';
import type { PairFairValue } from '../../core/config/fair-value-config.ts';
import { readSecret } from '../../core/config/load.ts';
import { DltError } from '../../core/errors.ts';
import type { ChainKind } from '../../core/pair.ts';
import { venueAuthOf, type VenueAuth } from '../../venue/auth/venue-auth.ts';
import type { VenueConfig } from '../../market/venue-clients.ts';
import type { BotManifest } from './manifest.ts';
import type { Setup } from './setup.ts';
import { VENUE_DEFAULTS } from '../../core/config/venue-defaults.ts';

export interface WalletSetup {
  readonly id: string;
  readonly chain: ChainKind;
  readonly key: string;
  readonly channels: readonly string[];
  readonly marketMaker: boolean;
  /** Pairs from the configuration (blockChain, base, quote), or pair ids a sandbox manifest assigns. */
  readonly pairs: ReadonlyArray<
    | { readonly blockChain: PairConfig['blockChain']; readonly base: string; readonly quote: string }
    | { readonly id: string }
  >;
}

export interface VenueAccess {
  readonly config: VenueConfig;
  readonly apiKey: string;
  /** Bearer tokens of the participant endpoints. */
  readonly auth: VenueAuth | undefined;
}

export interface Connection {
  readonly venue: VenueAccess;
  readonly evm?: { readonly rpcUrl: string; readonly chainId: number };
  readonly wasm?: { readonly rpcUrl: string; readonly networkPassphrase: string };
  readonly wallets: readonly WalletSetup[];
  /** A sandbox's venue: it does not reorganise, and it is always open. */
  readonly sandbox: boolean;
  /** A sandbox's pairs' fair-value facts (feeds, oracles) by pair id; empty for a configured venue. */
  readonly fairValueFacts: ReadonlyMap<string, PairFairValue>;
}

/** A sandbox's participant authentication: its client credentials when it issues tokens, else its fixed token. */
export function manifestAuth(venue: BotManifest['venue']): VenueAuth {
  const o = venue.oauth;
  return o === undefined
    ? { kind: 'static', token: venue.accessToken }
    : { kind: 'client-credentials', tokenUrl: o.tokenUrl, clientId: o.clientId, clientSecret: o.clientSecret };
}

/** The sandbox's venue and chains, its market-maker wallets with the pairs it assigns them. */
function fromManifest(m: BotManifest, names?: readonly string[]): Connection {
  const unknown = (names ?? []).filter((n) => !m.wallets.some((w) => w.name === n));
  if (unknown.length > 0)
    throw new DltError(
      'E_CONFIG_INVALID',
      `sandbox.wallets: the sandbox has no wallet ${unknown.join(', ')} (it has ${m.wallets.map((w) => w.name).join(', ')})`,
    );
  const auth = manifestAuth(m.venue);
  return {
    venue: {
      config: {
        restUrl: m.venue.restUrl,
        wsUrl: m.venue.wsUrl,
        wsHost: m.venue.wsHost,
        dateHeader: m.venue.dateHeader,
        apiKey: { env: 'UNUSED' },
        participantId: m.venue.participantId,
        ...VENUE_DEFAULTS,
      },
      apiKey: m.venue.apiKey,
      auth,
    },
    ...(m.chains.evm === undefined ? {} : { evm: m.chains.evm }),
    ...(m.chains.wasm === undefined ? {} : { wasm: m.chains.wasm }),
    // The named wallets (several may quote one pair), else the market makers.
    wallets: m.wallets
      .filter((w) => (names === undefined ? w.marketMaker : names.includes(w.name)))
      .map((w) => ({
        id: w.name,
        chain: w.chain,
        key: w.key,
        channels: (w.channelAccounts ?? []).map((c) => c.secret),
        marketMaker: w.marketMaker,
        pairs: w.pairIds.map((id) => ({ id })),
      })),
    sandbox: true,
    fairValueFacts: new Map(m.pairs.flatMap((p) => (p.fairValue === undefined ? [] : [[p.id, p.fairValue] as const]))),
  };
}

/**
 * The connection of a checked setup: the sandbox's (`manifest`: the running sandbox's, or the embedded one's
 * once started) or the configuration's, whose secrets are read here.
 */
export function connectionOf(setup: Setup, manifest: BotManifest | null): Connection {
  if (manifest !== null) return fromManifest(manifest, setup.config.sandbox?.wallets);
  const { config, env } = setup;
  const v = config.venue;
  // The setup check refuses a configuration without a venue or a sandbox, so this is a programming error.
  if (v === undefined) throw new Error('connectionOf: a configuration without a venue needs its sandbox manifest');
  const auth = venueAuthOf(v, (ref, where) => readSecret(ref, where, env));
  const enabled = config.pairs.filter((p) => p.enabled);
  const evm = config.chains.evm;
  const wasm = config.chains.wasm;
  return {
    venue: { config: v, apiKey: readSecret(v.apiKey, 'venue.apiKey', env), auth },
    ...(evm === undefined ? {} : { evm: { rpcUrl: evm.rpcUrl, chainId: evm.chainId } }),
    ...(wasm === undefined ? {} : { wasm: { rpcUrl: wasm.rpcUrl, networkPassphrase: wasm.networkPassphrase } }),
    wallets: config.wallets.map((w, i) => ({
      id: w.id,
      chain: w.chain,
      key: readSecret(w.key, `wallets.${i}.key`, env),
      channels: w.channelAccounts.map((c, j) => readSecret(c, `wallets.${i}.channelAccounts.${j}`, env)),
      marketMaker: w.marketMaker,
      pairs: enabled
        .filter((p) => p.wallet === w.id)
        .map((p) => ({ blockChain: p.blockChain, base: p.base, quote: p.quote })),
    })),
    sandbox: false,
    fairValueFacts: new Map(),
  };
}
