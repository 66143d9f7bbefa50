/**
 * Loaded into the bot's process by the capacity benchmark (`node --import`): counts the HTTP requests the
 * process sends to each chain's RPC endpoint and the JSON-RPC calls in them (`rpc-counter.ts`), and writes the
 * counts to `RPC_PROBE_OUT` on SIGUSR2. `RPC_PROBE_ENDPOINTS` names the endpoints as JSON
 * (`{"evm":"http://127.0.0.1:8545","wasm":"http://127.0.0.1:8000"}`). It only counts; every request goes out
 * unchanged.
 */
import { writeFileSync } from 'node:fs';
import { countRpcRequests } from './rpc-counter.ts';

const counter = countRpcRequests(JSON.parse(process.env.RPC_PROBE_ENDPOINTS ?? '{}') as Record<string, string>);

process.on('SIGUSR2', () => {
  const out = process.env.RPC_PROBE_OUT;
  if (out !== undefined) writeFileSync(out, JSON.stringify(counter.read()));
});
