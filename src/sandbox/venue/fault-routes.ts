/**
 * `/sandbox/faults/...`: the injected faults, listed (GET), cleared all at once (DELETE) or one kind at a
 * time: REST, chain RPC, price feeds, oracles, tokens, the WebSocket.
 */
import { z } from 'zod';
import { restFaultSchema } from '../api/faults.ts';
import type { ControlRequest } from '../api/http-server.ts';
import type { ControlTarget } from './control-routes.ts';
import { act, allow, body, NO_ROUTE, type ControlPath } from './control-request.ts';
import { rpcFaultSchema } from './rpc-proxy.ts';
import {
  clearValueFaults,
  feedFaultSchema,
  oracleFaultSchema,
  setFeedFault,
  setOracleFault,
  valueFaults,
} from './value-routes.ts';

const stallSchema = z.strictObject({ ms: z.number().int().min(1).max(3_600_000) });
const rpcSchema = rpcFaultSchema.extend({ chain: z.enum(['evm', 'wasm']) });

/** One kind of fault; `second` is the path part after the kind. NO_ROUTE when it does not serve the path. */
type FaultRoute = (target: ControlTarget, req: ControlRequest, second: string | undefined) => unknown;

function listFaults(target: ControlTarget) {
  return {
    rest: target.restFaults.list(),
    rpc: { evm: target.rpc.evm.faults(), wasm: target.rpc.wasm.faults() },
    wsStalled: target.ws.stalled,
    wsSilent: target.ws.silent,
    wsTickerFrozen: target.ws.ticker.frozen,
    ...valueFaults(target),
  };
}

/** `GET /sandbox/faults` lists them, `DELETE` clears every kind. */
function allFaults(target: ControlTarget, req: ControlRequest): unknown {
  if (req.method === 'DELETE') {
    target.restFaults.clear();
    target.rpc.evm.clearFaults();
    target.rpc.wasm.clearFaults();
    target.ws.stall(0);
    target.ws.silence(0);
    target.ws.ticker.frozen = false;
    clearValueFaults(target);
    return listFaults(target);
  }
  allow(req, 'GET');
  return listFaults(target);
}

const FAULT_ROUTES: Readonly<Record<string, FaultRoute>> = {
  rest: (target, req) => {
    if (req.method === 'DELETE') target.restFaults.clear();
    else {
      allow(req, 'POST');
      target.restFaults.add(body(restFaultSchema, req.body));
    }
    return listFaults(target);
  },
  rpc: (target, req) => {
    if (req.method === 'DELETE') {
      target.rpc.evm.clearFaults();
      target.rpc.wasm.clearFaults();
    } else {
      allow(req, 'POST');
      const { chain, ...spec } = body(rpcSchema, req.body);
      target.rpc[chain].addFault(spec);
    }
    return listFaults(target);
  },
  feed: (target, req, second) => {
    if (second !== undefined) return NO_ROUTE;
    if (req.method === 'DELETE') target.value.feeds.clearFaults();
    else {
      allow(req, 'POST');
      setFeedFault(target, body(feedFaultSchema, req.body));
    }
    return listFaults(target);
  },
  oracle: async (target, req, second) => {
    if (second !== undefined) return NO_ROUTE;
    if (req.method === 'DELETE') {
      target.oracles.unfreeze();
      return listFaults(target);
    }
    allow(req, 'POST');
    const published = await act(() => setOracleFault(target, body(oracleFaultSchema, req.body)));
    return { ...listFaults(target), published };
  },
  tokens: (target, req, second) => {
    if (second !== 'revoke') return NO_ROUTE;
    allow(req, 'POST');
    return { revoked: target.tokens.revokeAll() };
  },
  ws: (target, req, second) => {
    allow(req, 'POST');
    if (second === 'drop') return { dropped: target.ws.dropAll() };
    if (second === 'stall') {
      target.ws.stall(body(stallSchema, req.body).ms);
      return listFaults(target);
    }
    if (second === 'silence') {
      target.ws.silence(body(stallSchema, req.body).ms);
      return listFaults(target);
    }
    return NO_ROUTE;
  },
};

/** `/sandbox/faults[/<kind>[/<action>]]`. */
export async function faultRoute(target: ControlTarget, req: ControlRequest, path: ControlPath): Promise<unknown> {
  if (path.first === undefined) return allFaults(target, req);
  const route = Object.hasOwn(FAULT_ROUTES, path.first) ? FAULT_ROUTES[path.first] : undefined;
  return route === undefined ? NO_ROUTE : await route(target, req, path.second);
}
