/**
 * The chain B node as the sandbox starts it: an emulator closing ledgers on its timer and the RPC server in
 * front of it. `stop()` ends both.
 */
import { WasmEmulator, type EmulatorOptions } from './emulator.ts';
import { startRpcServer, type RunningRpc } from './rpc-server.ts';

export const DEFAULT_WASM_RPC_PORT = 8000;

export interface WasmNode {
  readonly emulator: WasmEmulator;
  readonly rpc: RunningRpc;
  stop(): Promise<void>;
}

export async function startWasmNode(
  options: EmulatorOptions & { readonly port?: number; readonly host?: string } = {},
): Promise<WasmNode> {
  const emulator = new WasmEmulator(options);
  const rpc = await startRpcServer(emulator, { port: options.port ?? DEFAULT_WASM_RPC_PORT, host: options.host });
  emulator.start();
  return {
    emulator,
    rpc,
    stop: async () => {
      emulator.stop();
      await rpc.close();
    },
  };
}
