/**
 * Loaded into the bot's process by the capacity benchmark (`node --import`): counts the JSON-RPC requests
 * the bot writes to the chain nodes, by method (chain A reads by function selector; each member of a batch
 * counted), as the transport publishes them (`JSON_RPC_CHANNEL`), and writes them to `RPC_PROBE_OUT` on
 * SIGUSR2. It only counts; every request goes out unchanged.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { JSON_RPC_CHANNEL } from '../../../src/chains/json-rpc-http.ts';

const counts = new Map<string, number>();

function methodsOf(body: unknown): string[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((r) => {
      const request = r as { method?: unknown; params?: Array<{ data?: unknown }> };
      if (typeof request.method !== 'string') return [];
      const data = request.params?.[0]?.data;
      return [
        request.method === 'eth_call' && typeof data === 'string' ? `eth_call ${data.slice(0, 10)}` : request.method,
      ];
    });
  } catch {
    return [];
  }
}

subscribe(JSON_RPC_CHANNEL, (message) => {
  for (const method of methodsOf((message as { body?: unknown }).body))
    counts.set(method, (counts.get(method) ?? 0) + 1);
});

process.on('SIGUSR2', () => {
  const out = process.env.RPC_PROBE_OUT;
  if (out !== undefined) writeFileSync(out, JSON.stringify(Object.fromEntries(counts)));
});
