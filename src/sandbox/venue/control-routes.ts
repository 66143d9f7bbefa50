/**
 * The sandbox's control endpoints under `/sandbox/` (never under `/api/v1`): trading status of a pair, the
 * clock, fault injection (REST, WebSocket, chain RPC, price feeds, oracles), the simulated market, the true values and
 * their price feeds (`value-routes.ts`), and a status overview. Bodies
 * are JSON; answers are JSON; refusals are AppErrors (400 bad input, 404 unknown pair, 405 wrong method,
 * 409 an action the pair's state does not allow).
 */
import { z } from 'zod';
import { isDltError } from '../../core/errors.ts';
import type { RestFaults } from '../api/faults.ts';
import { restFaultSchema } from '../api/faults.ts';
import type { ControlHandler, ControlRequest } from '../api/http-server.ts';
import { badRequest, HttpError, notFound } from '../api/http-error.ts';
import { pathSegment } from '../api/query.ts';
import { pairRecord } from '../api/render.ts';
import type { VenueState } from '../api/venue-state.ts';
import type { MarketDataServer } from '../api/ws-server.ts';
import type { SandboxClock } from './clock.ts';
import { rpcFaultSchema, type RpcProxy } from './rpc-proxy.ts';
import type { TradingScheduler } from './scheduler.ts';
import { injectTrade, injectTradeSchema } from './trade-routes.ts';
import {
  clearValueFaults,
  feedDocument,
  feedFaultSchema,
  oracleFaultSchema,
  setFeedFault,
  setOracleFault,
  trueValues,
  valueFaults,
} from './value-routes.ts';
import type { SandboxOracles } from './oracle-setup.ts';
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
const stallSchema = z.strictObject({ ms: z.number().int().min(1).max(3_600_000) });
const rpcSchema = rpcFaultSchema.extend({ chain: z.enum(['evm', 'wasm']) });
const tickerSchema = z.strictObject({
  fieldNames: z.enum(['documentation', 'sdk']).optional(),
  frozen: z.boolean().optional(),
});
const walletRecordSchema = z.strictObject({
  status: z.string().min(1).max(64).optional(),
  designation: z.string().min(1).max(64).optional(),
});

function body<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success)
    throw badRequest(
      'invalid request body',
      r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`),
    );
  return r.data;
}

function allow(req: ControlRequest, method: 'GET' | 'POST' | 'DELETE'): void {
  if (req.method !== method)
    throw new HttpError(405, `${req.method} ${req.path}: use ${method}`, [], { allow: method });
}

/** Runs a sandbox action; its DltErrors become 400, 404 or 409. */
async function act<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isDltError(e)) {
      if (e.details.notFound === true) throw notFound(e.message);
      throw new HttpError(e.details.conflict === true ? 409 : 400, e.message);
    }
    throw e;
  }
}

export function controlHandler(t: ControlTarget): ControlHandler {
  return async (req) => {
    const [head, a, b, ...rest] = req.path.split('/').slice(1);
    switch (head) {
      case '':
      case undefined:
      case 'status':
        allow(req, 'GET');
        return t.status();
      case 'manifest':
        allow(req, 'GET');
        return t.manifest();
      case 'tick':
        allow(req, 'POST');
        await t.scheduler.tick();
        return t.status();
      case 'clock': {
        if (a === undefined) {
          allow(req, 'GET');
          return t.clock.state();
        }
        allow(req, 'POST');
        if (a === 'advance') {
          const v = body(advanceSchema, req.body);
          const ms = (v.ms ?? 0) + (v.seconds ?? 0) * 1000 + (v.minutes ?? 0) * 60_000 + (v.hours ?? 0) * 3_600_000;
          await act(() => t.clock.advance(ms));
        } else if (a === 'set') {
          const v = body(setSchema, req.body);
          await act(() => t.clock.set(typeof v.time === 'number' ? v.time : Date.parse(v.time)));
        } else break;
        await t.scheduler.tick();
        return t.clock.state();
      }
      case 'pairs': {
        if (a === undefined || b === undefined || rest.length > 0) break;
        allow(req, 'POST');
        const p = t.state.pairByIdOrSymbol(pathSegment(a, 'pair'));
        if (p === undefined) throw notFound(`No pair ${a}`);
        const actions: Record<string, () => Promise<void>> = {
          open: () => t.scheduler.open(p.id),
          close: () => t.scheduler.close(p.id),
          halt: () => t.scheduler.halt(p.id),
          resume: () => t.scheduler.resume(p.id),
          clear: () => t.scheduler.clear(p.id),
        };
        const action = actions[b];
        if (action === undefined) break;
        await act(action);
        return pairRecord(p);
      }
      case 'wallets': {
        // POST /sandbox/wallets/<address> {status?, designation?}: the wallet's record at the venue changes.
        if (a === undefined || b !== undefined) break;
        allow(req, 'POST');
        const record = t.state.setWalletRecord(pathSegment(a, 'wallet address'), body(walletRecordSchema, req.body));
        if (record === undefined) throw notFound(`No participant wallet ${a}`);
        return record;
      }
      case 'trades':
        // POST /sandbox/trades {wallet, pair, side, quantity, price, ...}: a trade the chain never had (trade-routes.ts).
        if (a !== undefined) break;
        allow(req, 'POST');
        return injectTrade(t.state, t.clock.nowMs(), body(injectTradeSchema, req.body));
      case 'faults':
        return faults(t, req, a, b);
      case 'ws': {
        // POST /sandbox/ws/ticker {fieldNames?, frozen?}: the ticker's field names; frozen publishes nothing.
        if (a !== 'ticker' || b !== undefined) break;
        allow(req, 'POST');
        const v = body(tickerSchema, req.body);
        if (v.fieldNames !== undefined) t.ws.ticker.fieldNames = v.fieldNames;
        if (v.frozen !== undefined) t.ws.ticker.frozen = v.frozen;
        return { fieldNames: t.ws.ticker.fieldNames, frozen: t.ws.ticker.frozen };
      }
      case 'feeds':
        if (a === undefined || b !== undefined) break;
        allow(req, 'GET');
        return feedDocument(t, a);
      case 'values':
        if (a !== undefined) break;
        allow(req, 'GET');
        return trueValues(t, req);
      case 'flow':
        if (a === undefined) {
          allow(req, 'GET');
          return t.flow.describe();
        }
        allow(req, 'POST');
        if (a === 'start') await t.flow.start();
        else if (a === 'stop') await t.flow.stop();
        else break;
        return t.flow.describe();
      case 'chains':
        allow(req, 'POST');
        if (a === 'wasm' && b === 'close-ledger') return { ledger: t.chains.closeLedger() };
        if (a === 'evm' && b === 'mine') return { block: await t.chains.mineBlock() };
        break;
      default:
        break;
    }
    throw notFound(`No control endpoint ${req.method} /sandbox${req.path}`);
  };
}

async function faults(
  t: ControlTarget,
  req: ControlRequest,
  a: string | undefined,
  b: string | undefined,
): Promise<unknown> {
  const list = () => ({
    rest: t.restFaults.list(),
    rpc: { evm: t.rpc.evm.faults(), wasm: t.rpc.wasm.faults() },
    wsStalled: t.ws.stalled,
    wsSilent: t.ws.silent,
    wsTickerFrozen: t.ws.ticker.frozen,
    ...valueFaults(t),
  });
  if (a === undefined) {
    if (req.method === 'DELETE') {
      t.restFaults.clear();
      t.rpc.evm.clearFaults();
      t.rpc.wasm.clearFaults();
      t.ws.stall(0);
      t.ws.silence(0);
      t.ws.ticker.frozen = false;
      clearValueFaults(t);
      return list();
    }
    allow(req, 'GET');
    return list();
  }
  if (a === 'rest') {
    if (req.method === 'DELETE') t.restFaults.clear();
    else {
      allow(req, 'POST');
      t.restFaults.add(body(restFaultSchema, req.body));
    }
    return list();
  }
  if (a === 'rpc') {
    if (req.method === 'DELETE') {
      t.rpc.evm.clearFaults();
      t.rpc.wasm.clearFaults();
    } else {
      allow(req, 'POST');
      const { chain, ...spec } = body(rpcSchema, req.body);
      t.rpc[chain].addFault(spec);
    }
    return list();
  }
  if (a === 'feed' && b === undefined) {
    if (req.method === 'DELETE') t.value.feeds.clearFaults();
    else {
      allow(req, 'POST');
      setFeedFault(t, body(feedFaultSchema, req.body));
    }
    return list();
  }
  if (a === 'oracle' && b === undefined) {
    if (req.method === 'DELETE') {
      t.oracles.unfreeze();
      return list();
    }
    allow(req, 'POST');
    const published = await act(() => setOracleFault(t, body(oracleFaultSchema, req.body)));
    return { ...list(), published };
  }
  if (a === 'tokens' && b === 'revoke') {
    allow(req, 'POST');
    return { revoked: t.tokens.revokeAll() };
  }
  if (a === 'ws') {
    allow(req, 'POST');
    if (b === 'drop') return { dropped: t.ws.dropAll() };
    if (b === 'stall') {
      t.ws.stall(body(stallSchema, req.body).ms);
      return list();
    }
    if (b === 'silence') {
      t.ws.silence(body(stallSchema, req.body).ms);
      return list();
    }
  }
  throw notFound(`No control endpoint ${req.method} /sandbox${req.path}`);
}
