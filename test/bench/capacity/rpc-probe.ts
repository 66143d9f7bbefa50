/**
 * Loaded into the bot's process by the capacity benchmark (`node --import`): counts the JSON-RPC requests
 * the bot sends to the chain nodes, by method (chain A reads by function selector), and writes them to
 * `RPC_PROBE_OUT` on SIGUSR2. It only counts; every request goes out unchanged.
 */
import { writeFileSync } from 'node:fs';

const counts = new Map<string, number>();
const original = globalThis.fetch;

function methodOf(body: unknown): string | null {
  if (typeof body !== 'string' || !body.startsWith('{')) return null;
  try {
    const request = JSON.parse(body) as { method?: unknown; params?: Array<{ data?: unknown }> };
    if (typeof request.method !== 'string') return null;
    const data = request.params?.[0]?.data;
    return request.method === 'eth_call' && typeof data === 'string' ? `eth_call ${data.slice(0, 10)}` : request.method;
  } catch {
    return null;
  }
}

globalThis.fetch = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  const method = methodOf(init?.body);
  if (method !== null) counts.set(method, (counts.get(method) ?? 0) + 1);
  return original(input, init);
};

process.on('SIGUSR2', () => {
  const out = process.env.RPC_PROBE_OUT;
  if (out !== undefined) writeFileSync(out, JSON.stringify(Object.fromEntries(counts)));
});
