/**
 * The sandbox's two chains, started together: the chain A node (a child process, booting while this process
 * compiles the contracts) and the chain B emulator with its RPC server, each behind a fault-injecting proxy
 * on its public port. Every part started is deferred on the start's disposal stack, so a failure later in the start stops it.
 */
import type { Logger } from 'pino';
import { loadArtifacts } from '../evm/compile.ts';
import { startEvmNode, type EvmNode } from '../evm/node.ts';
import { drawsOf, type SeededRandom } from '../flow/random.ts';
import { WasmEmulator } from '../wasm/emulator.ts';
import { startRpcServer } from '../wasm/rpc-server.ts';
import type { SandboxConfig } from './options.ts';
import { startRpcProxy, type RpcProxy } from './rpc-proxy.ts';

export interface SandboxChains {
  readonly node: EvmNode;
  readonly emu: WasmEmulator;
  /** The emulator's own RPC server (the venue's indexer and traders use it, behind no proxy). */
  readonly wasmRpcUrl: string;
  readonly evmProxy: RpcProxy;
  readonly wasmProxy: RpcProxy;
}

export async function startChains(
  config: SandboxConfig,
  random: SeededRandom,
  stack: AsyncDisposableStack,
  logger: Logger,
): Promise<SandboxChains> {
  const started = performance.now();
  // The node boots in its own process while this one compiles the contracts (cached after the first run).
  const nodePromise = startEvmNode({ blockTimeMs: config.evm.blockTimeMs, automine: false });
  stack.defer(() =>
    nodePromise.then(
      (n) => n.stop(),
      () => undefined,
    ),
  );
  loadArtifacts();
  const emu = new WasmEmulator({
    passphrase: config.wasm.networkPassphrase,
    ledgerIntervalMs: config.wasm.ledgerIntervalMs,
    retentionLedgers: config.wasm.retentionLedgers,
  });
  stack.defer(() => emu.stop());
  const wasmRpc = await startRpcServer(emu, { port: 0 });
  stack.defer(() => wasmRpc.close());
  const wasmProxy = await startRpcProxy({
    port: config.ports.wasm,
    target: wasmRpc.url,
    random: drawsOf(random, 'wasm faults'),
  });
  stack.defer(() => wasmProxy.close());
  const node = await nodePromise;
  const evmProxy = await startRpcProxy({
    port: config.ports.evm,
    target: node.rpcUrl,
    random: drawsOf(random, 'evm faults'),
  });
  stack.defer(() => evmProxy.close());
  logger.info({ ms: Math.round(performance.now() - started) }, 'chain nodes up');
  return { node, emu, wasmRpcUrl: wasmRpc.url, evmProxy, wasmProxy };
}
