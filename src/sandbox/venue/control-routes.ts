/**
 * The sandbox's control endpoints under `/sandbox/` (never under `/api/v1`): trading status of a pair, the
 * clock, fault injection (REST, WebSocket, chain RPC, price feeds, oracles), the simulated market, the true values and
 * their price feeds (`value-routes.ts`), and a status overview. Bodies
 * are JSON; answers are JSON; refusals are AppErrors (400 bad input, 404 unknown pair, 405 wrong method,
 * 409 an action the pair's state does not allow).
 */
import { z } from 'zod';
import type { RestFaults } from '../api/faults.ts';
import type { ControlHandler, ControlRequest } from '../api/http-server.ts';
import { notFound } from '../api/http-error.ts';
import { pathSegment } from '../api/query.ts';
import { pairRecord } from '../api/render.ts';
import type { VenueState } from '../api/venue-state.ts';
import type { MarketDataServer } from '../api/ws-server.ts';
import type { SandboxClock } from './clock.ts';
import { act, allow, body, controlPath, NO_ROUTE, noEndpoint, type ControlPath } from './control-request.ts';
import { faultRoute } from './fault-routes.ts';
import type { SandboxOracles } from './oracle-setup.ts';
import type { RpcProxy } from './rpc-proxy.ts';
import type { TradingScheduler } from './scheduler.ts';
import { injectTrade, injectTradeSchema } from './trade-routes.ts';
import { feedDocument, trueValues } from './value-routes.ts';
import type { ValueParts } from './value-setup.ts';

export interface ControlTarget {
  readonly state: VenueState;
  readonly clock: SandboxClock;
  readonly scheduler: TradingScheduler;
  readonly restFaults: RestFaults;
  readonly ws: MarketDataServer;
  readonly tokens: { revokeAll(): number };
  readonly rpc: { readonly evm: RpcProxy; readonly wasm: RpcProxy };
  readonly flow: { running(): boolean; start(): Promise<void>; stop(): Promise<void>; describe(): unknown };
  /** The true values and their feeds. */
  readonly value: ValueParts;
  readonly oracles: SandboxOracles;
  readonly chains: { closeLedger(): number; mineBlock(): Promise<number> };
  status(): unknown;
  manifest(): unknown;
}

const advanceSchema = z.strictObject({
  ms: z.number().int().min(0).optional(),
  seconds: z.number().min(0).optional(),
  minutes: z.number().min(0).optional(),
  hours: z.number().min(0).optional(),
});
const setSchema = z.strictObject({ time: z.union([z.iso.datetime({ offset: true }), z.number().int().min(0)]) });
const tickerSchema = z.strictObject({
  fieldNames: z.enum(['documentation', 'sdk']).optional(),
  frozen: z.boolean().optional(),
});
const walletRecordSchema = z.strictObject({
  status: z.string().min(1).max(64).optional(),
  designation: z.string().min(1).max(64).optional(),
});

/** One family of endpoints, `/sandbox/<family>/...`; NO_ROUTE when it does not serve the path. */
type ControlRoute = (target: ControlTarget, req: ControlRequest, path: ControlPath) => unknown;

function status(target: ControlTarget, req: ControlRequest): unknown {
  allow(req, 'GET');
  return target.status();
}

/** GET the clock; POST `advance` {ms?, seconds?, minutes?, hours?} or `set` {time}, then a scheduler tick. */
async function clockRoute(target: ControlTarget, req: ControlRequest, { first }: ControlPath): Promise<unknown> {
  if (first === undefined) {
    allow(req, 'GET');
    return target.clock.state();
  }
  allow(req, 'POST');
  if (first === 'advance') {
    const by = body(advanceSchema, req.body);
    const ms = (by.ms ?? 0) + (by.seconds ?? 0) * 1000 + (by.minutes ?? 0) * 60_000 + (by.hours ?? 0) * 3_600_000;
    await act(() => target.clock.advance(ms));
  } else if (first === 'set') {
    const to = body(setSchema, req.body);
    await act(() => target.clock.set(typeof to.time === 'number' ? to.time : Date.parse(to.time)));
  } else return NO_ROUTE;
  await target.scheduler.tick();
  return target.clock.state();
}

/** POST `/sandbox/pairs/<pair>/<open|close|halt|resume|clear>`: the pair's trading status. */
async function pairRoute(target: ControlTarget, req: ControlRequest, path: ControlPath): Promise<unknown> {
  const { first, second } = path;
  if (first === undefined || second === undefined || path.rest.length > 0) return NO_ROUTE;
  allow(req, 'POST');
  const pair = target.state.pairByIdOrSymbol(pathSegment(first, 'pair'));
  if (pair === undefined) throw notFound(`No pair ${first}`);
  const scheduler = target.scheduler;
  const actions: Record<string, () => Promise<void>> = {
    open: () => scheduler.open(pair.id),
    close: () => scheduler.close(pair.id),
    halt: () => scheduler.halt(pair.id),
    resume: () => scheduler.resume(pair.id),
    clear: () => scheduler.clear(pair.id),
  };
  const action = actions[second];
  if (action === undefined) return NO_ROUTE;
  await act(action);
  return pairRecord(pair);
}

/** GET the simulated market; POST `start` or `stop`. */
async function flowRoute(target: ControlTarget, req: ControlRequest, { first }: ControlPath): Promise<unknown> {
  if (first === undefined) {
    allow(req, 'GET');
    return target.flow.describe();
  }
  allow(req, 'POST');
  if (first === 'start') await target.flow.start();
  else if (first === 'stop') await target.flow.stop();
  else return NO_ROUTE;
  return target.flow.describe();
}

const CONTROL_ROUTES: Readonly<Record<string, ControlRoute>> = {
  '': status,
  status,
  manifest: (target, req) => {
    allow(req, 'GET');
    return target.manifest();
  },
  tick: async (target, req) => {
    allow(req, 'POST');
    await target.scheduler.tick();
    return target.status();
  },
  clock: clockRoute,
  pairs: pairRoute,
  // POST /sandbox/wallets/<address> {status?, designation?}: the wallet's record at the venue changes.
  wallets: (target, req, { first, second }) => {
    if (first === undefined || second !== undefined) return NO_ROUTE;
    allow(req, 'POST');
    const record = target.state.setWalletRecord(
      pathSegment(first, 'wallet address'),
      body(walletRecordSchema, req.body),
    );
    if (record === undefined) throw notFound(`No participant wallet ${first}`);
    return record;
  },
  // POST /sandbox/trades {wallet, pair, side, quantity, price, ...}: a trade the chain never had (trade-routes.ts).
  trades: (target, req, { first }) => {
    if (first !== undefined) return NO_ROUTE;
    allow(req, 'POST');
    return injectTrade(target.state, target.clock.nowMs(), body(injectTradeSchema, req.body));
  },
  faults: faultRoute,
  // POST /sandbox/ws/ticker {fieldNames?, frozen?}: the ticker's field names; frozen publishes nothing.
  ws: (target, req, { first, second }) => {
    if (first !== 'ticker' || second !== undefined) return NO_ROUTE;
    allow(req, 'POST');
    const ticker = target.ws.ticker;
    const change = body(tickerSchema, req.body);
    if (change.fieldNames !== undefined) ticker.fieldNames = change.fieldNames;
    if (change.frozen !== undefined) ticker.frozen = change.frozen;
    return { fieldNames: ticker.fieldNames, frozen: ticker.frozen };
  },
  feeds: (target, req, { first, second }) => {
    if (first === undefined || second !== undefined) return NO_ROUTE;
    allow(req, 'GET');
    return feedDocument(target, first);
  },
  values: (target, req, { first }) => {
    if (first !== undefined) return NO_ROUTE;
    allow(req, 'GET');
    return trueValues(target, req);
  },
  flow: flowRoute,
  chains: async (target, req, { first, second }) => {
    allow(req, 'POST');
    if (first === 'wasm' && second === 'close-ledger') return { ledger: target.chains.closeLedger() };
    if (first === 'evm' && second === 'mine') return { block: await target.chains.mineBlock() };
    return NO_ROUTE;
  },
};

export function controlHandler(target: ControlTarget): ControlHandler {
  return async (req) => {
    const path = controlPath(req);
    const family = path.family ?? '';
    const route = Object.hasOwn(CONTROL_ROUTES, family) ? CONTROL_ROUTES[family] : undefined;
    const answer = route === undefined ? NO_ROUTE : await route(target, req, path);
    if (answer === NO_ROUTE) throw noEndpoint(req);
    return answer;
  };
}
