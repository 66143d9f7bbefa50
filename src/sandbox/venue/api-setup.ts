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

export async function startVenueApi(s: VenueApiSetup): Promise<VenueApi> {
  const { config, state, clock, scheduler, tokens } = s;
  const calendar = sandboxCalendar(config);
  const restFaults = new RestFaults(drawsOf(s.random, 'rest faults'));
  const ws = new MarketDataServer({
    state,
    auth: { apiKey: s.apiKey, dateHeader: config.api.dateHeader, toleranceMs: config.api.dateToleranceMs },
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
  const status = () => ({
    clock: clock.state(),
    tradingMode: config.trading.mode,
    pairs: state.pairs.map((p) => {
      const resumeAt = scheduler.resumeAt(p.id);
      return {
        id: p.id,
        symbol: p.symbol,
        tradingStatus: p.status.tradingStatus,
        statusChangeReason: p.status.statusChangeReason,
        phase: p.status.phase,
        tradingHaltCounter: p.status.tradingHaltCounter,
        resumeAt: resumeAt === undefined ? null : new Date(resumeAt).toISOString(),
        restingOrders: p.market.book.size,
        trades: p.market.trades.count,
      };
    }),
    indexer: { evmBlock: s.followers.evm.processedBlock, wasmLedger: s.followers.wasm.processedLedger },
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
    flow: s.flow.describe(),
  });
  let server: ApiServer;
  try {
    server = await startApiServer({
      port: config.ports.api,
      context: {
        state,
        accessToken: s.accessToken,
        tokens,
        nowMs: () => clock.nowMs(),
        nav: (pairId) => s.value.nav(pairId),
        haltEnd: (pairId) => scheduler.resumeAt(pairId),
        // A day order lasts until its trading day's close; always open, days do not end.
        ...(config.trading.mode === 'calendar'
          ? { validUntil: (placedAtMs: number) => nextSession(placedAtMs, calendar).closeMs }
          : {}),
      },
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
        rpc: s.rpc,
        flow: s.flow,
        value: s.value,
        oracles: s.oracles,
        chains: s.chains,
        status,
        manifest: s.manifest,
      }),
      onError: (e, path) => s.logger.error({ err: e, path }, 'venue API handler failed'),
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
