/** The handle `startSandbox` returns: every running part, the manifest, and `stop()`. */
import type { EvmFollower } from '../api/evm-follower.ts';
import type { TokenIssuer } from '../api/token-endpoint.ts';
import type { VenueState } from '../api/venue-state.ts';
import type { WasmFollower } from '../api/wasm-follower.ts';
import type { EvmNode } from '../evm/node.ts';
import type { MarketFlow } from '../flow/flow.ts';
import type { PriceFeeds } from '../value/feeds.ts';
import type { TrueValues } from '../value/true-values.ts';
import type { WasmEmulator } from '../wasm/emulator.ts';
import type { SandboxClock } from './clock.ts';
import type { DeployedSandbox } from './deploy.ts';
import type { Manifest } from './manifest.ts';
import type { SandboxOracles } from './oracle-setup.ts';
import type { SandboxConfig } from './options.ts';
import type { TradingScheduler } from './scheduler.ts';

export interface Sandbox {
  readonly manifest: Manifest;
  /** Where the manifest was written; null when writing was switched off. */
  readonly manifestPath: string | null;
  readonly config: SandboxConfig;
  readonly clock: SandboxClock;
  readonly state: VenueState;
  readonly scheduler: TradingScheduler;
  readonly flow: MarketFlow;
  /** The hidden true value of every pair (now, as sampled in the last hour, funds' NAVs; `shock` for tests). */
  readonly values: TrueValues;
  /** The HTTP price feeds (`GET /sandbox/feeds/{symbol}`). */
  readonly feeds: PriceFeeds;
  /** The price oracles of both chains and their operators (`poll()` runs a round now). */
  readonly oracles: SandboxOracles;
  readonly emulator: WasmEmulator;
  readonly evmNode: EvmNode;
  readonly deployed: DeployedSandbox;
  readonly followers: { readonly evm: EvmFollower; readonly wasm: WasmFollower };
  /** The token endpoint: tokens granted and refused so far. */
  readonly tokens: TokenIssuer;
  /** Milliseconds from the call to ready. */
  readonly readyMs: number;
  /** Resolves once the venue's view has caught up with both chains' latest block and ledger. */
  sync(): Promise<void>;
  /** Stops everything; resolves when no child process runs and no port is bound. Safe to call twice. */
  stop(): Promise<void>;
}
