/**
 * The venue API of a running sandbox on its one port: REST with its injected faults, the AppSync Events
 * WebSocket, the token endpoint, and the control endpoints with the status overview they answer.
 */
import type { Logger } from 'pino';
import { nextSession } from '../../core/calendar.ts';
import type { EvmFollower } from '../api/evm-follower.ts';
import { RestFaults } from '../api/faults.ts';
import { startApiServer, type ApiServer } from '../api/http-server.ts';
import type { TokenIssuer } from '../api/token-endpoint.ts';
import type { VenueState } from '../api/venue-state.ts';
import type { ApiContext } from '../api/rest-routes.ts';
import type { WasmFollower } from '../api/wasm-follower.ts';
import { MarketDataServer } from '../api/ws-server.ts';
import { drawsOf, type SeededRandom } from '../flow/random.ts';
import type { SandboxClock } from './clock.ts';
import { controlHandler, type ControlTarget } from './control-routes.ts';
import type { FlowHandle } from './flow-setup.ts';
import type { SandboxOracles } from './oracle-setup.ts';
import { sandboxCalendar, type SandboxConfig } from './options.ts';
import type { RpcProxy } from './rpc-proxy.ts';
import type { TradingScheduler } from './scheduler.ts';
import type { ValueParts } from './value-setup.ts';

export interface VenueApiSetup {
  readonly config: SandboxConfig;
  readonly state: VenueState;
  readonly clock: SandboxClock;
  readonly scheduler: TradingScheduler;
  readonly tokens: TokenIssuer;
  readonly accessToken: string;
  readonly apiKey: string;
  readonly random: SeededRandom;
  readonly rpc: { readonly evm: RpcProxy; readonly wasm: RpcProxy };
  readonly followers: { readonly evm: EvmFollower; readonly wasm: WasmFollower };
  readonly flow: FlowHandle;
  readonly value: ValueParts;
  readonly oracles: SandboxOracles;
  readonly chains: ControlTarget['chains'];
  readonly manifest: () => unknown;
  readonly logger: Logger;
}

export interface VenueApi {
  readonly server: ApiServer;
  readonly ws: MarketDataServer;
  close(): Promise<void>;
}

/** The market-data WebSocket as the configuration sets it up. */
function marketDataServer(setup: VenueApiSetup): MarketDataServer {
  const { config, clock } = setup;
  return new MarketDataServer({
    state: setup.state,
    auth: { apiKey: setup.apiKey, dateHeader: config.api.dateHeader, toleranceMs: config.api.dateToleranceMs },
    nowMs: () => clock.nowMs(),
    // Clients date their authorization by their own clock: checked against wall time, as tokens expire on it.
    authNowMs: () => Date.now(),
    coalesceMs: config.api.wsCoalesceMs,
    snapshotIntervalMs: config.api.wsSnapshotIntervalMs,
    depth: config.api.wsDepth,
    keepAliveMs: config.api.wsKeepAliveMs,
    connectionTimeoutMs: config.api.wsConnectionTimeoutMs,
    tickerFieldNames: config.api.wsTickerFieldNames,
  });
}

/** `GET /sandbox/status`: the clock, each pair's trading state, the indexers, tokens, WebSocket and flow. */
function statusOverview(setup: VenueApiSetup, ws: MarketDataServer): unknown {
  const { clock, scheduler, tokens } = setup;
  return {
    clock: clock.state(),
    tradingMode: setup.config.trading.mode,
    pairs: setup.state.pairs.map((pair) => {
      const resumeAt = scheduler.resumeAt(pair.id);
      return {
        id: pair.id,
        symbol: pair.symbol,
        tradingStatus: pair.status.tradingStatus,
        statusChangeReason: pair.status.statusChangeReason,
        phase: pair.status.phase,
        tradingHaltCounter: pair.status.tradingHaltCounter,
        resumeAt: resumeAt === undefined ? null : new Date(resumeAt).toISOString(),
        restingOrders: pair.market.book.size,
        trades: pair.market.trades.count,
      };
    }),
    indexer: { evmBlock: setup.followers.evm.processedBlock, wasmLedger: setup.followers.wasm.processedLedger },
    tokens: { issued: tokens.issued, refused: tokens.refused, lifetimeSeconds: tokens.lifetimeSeconds },
    websocket: {
      connections: ws.connections,
      dataMessages: ws.sent,
      keepAlives: ws.keepAlives,
      refused: ws.refused,
      stalled: ws.stalled,
      silent: ws.silent,
    },
    clearings: scheduler.clearings,
    flow: setup.flow.describe(),
  };
}

/** What the REST routes read: the state, the token, the clock, true values, halts and day-order validity. */
function apiContext(setup: VenueApiSetup): ApiContext {
  const { config, clock, scheduler } = setup;
  const calendar = sandboxCalendar(config);
  return {
    state: setup.state,
    accessToken: setup.accessToken,
    tokens: setup.tokens,
    nowMs: () => clock.nowMs(),
    nav: (pairId) => setup.value.nav(pairId),
    haltEnd: (pairId) => scheduler.resumeAt(pairId),
    // A day order lasts until its trading day's close; always open, days do not end.
    ...(config.trading.mode === 'calendar'
      ? { validUntil: (placedAtMs: number) => nextSession(placedAtMs, calendar).closeMs }
      : {}),
  };
}

export async function startVenueApi(setup: VenueApiSetup): Promise<VenueApi> {
  const { state, clock, scheduler, tokens } = setup;
  const restFaults = new RestFaults(drawsOf(setup.random, 'rest faults'));
  const ws = marketDataServer(setup);
  let server: ApiServer;
  try {
    server = await startApiServer({
      port: setup.config.ports.api,
      context: apiContext(setup),
      faults: restFaults,
      ws,
      tokens,
      control: controlHandler({
        state,
        clock,
        scheduler,
        restFaults,
        ws,
        tokens,
        rpc: setup.rpc,
        flow: setup.flow,
        value: setup.value,
        oracles: setup.oracles,
        chains: setup.chains,
        status: () => statusOverview(setup, ws),
        manifest: setup.manifest,
      }),
      onError: (e, path) => setup.logger.error({ err: e, path }, 'venue API handler failed'),
    });
  } catch (e) {
    await ws.close();
    throw e;
  }
  return {
    server,
    ws,
    close: async () => {
      await server.close();
      await ws.close();
    },
  };
}
