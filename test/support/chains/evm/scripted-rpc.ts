/** A scripted JSON-RPC transport for unit tests: each method answers from a handler, calls are recorded. */
import { rpcFailure, type RpcTransport } from '../../../../src/chains/evm/json-rpc.ts';
import { EvmRpc } from '../../../../src/chains/evm/rpc-client.ts';
import { createEvmMetrics, type EvmMetrics } from '../../../../src/chains/evm/metrics.ts';
import { silentLogger } from '../../../../src/telemetry/logger.ts';
import { Metrics } from '../../../../src/telemetry/metrics.ts';

export type Handler = (params: readonly unknown[]) => unknown;

export interface Scripted {
  readonly client: EvmRpc;
  readonly metrics: Metrics;
  readonly evm: EvmMetrics;
  readonly calls: { method: string; params: readonly unknown[] }[];
  readonly handlers: Record<string, Handler>;
}

export function scripted(handlers: Record<string, Handler>): Scripted {
  const calls: { method: string; params: readonly unknown[] }[] = [];
  const transport: RpcTransport = async (method, params) => {
    calls.push({ method, params });
    const h = handlers[method];
    if (h === undefined) throw rpcFailure(method, 'rpc', `method ${method} not scripted`, { rpcCode: -32601 });
    return h(params);
  };
  const metrics = new Metrics();
  const evm = createEvmMetrics(metrics);
  return { client: new EvmRpc(transport, evm, silentLogger()), metrics, evm, calls, handlers };
}

export const hex = (n: bigint) => `0x${n.toString(16)}`;
