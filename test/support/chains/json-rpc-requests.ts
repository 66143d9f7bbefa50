/**
 * The JSON-RPC requests the project's HTTP transports sent (they publish each body on `JSON_RPC_CHANNEL`): how
 * tests see which calls left together in one batch.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { JSON_RPC_CHANNEL } from '../../../src/chains/json-rpc-http.ts';

/** `work`'s result, and the methods of each HTTP request sent while it ran (a batch: its list of methods). */
export async function requestsDuring<T>(work: () => Promise<T>): Promise<{ result: T; requests: string[][] }> {
  const bodies: string[] = [];
  const listen = (m: unknown) => bodies.push((m as { body: string }).body);
  subscribe(JSON_RPC_CHANNEL, listen);
  let result: T;
  try {
    result = await work();
  } finally {
    unsubscribe(JSON_RPC_CHANNEL, listen);
  }
  const requests = bodies.map((b) => {
    const parsed = JSON.parse(b) as { method: string } | Array<{ method: string }>;
    return Array.isArray(parsed) ? parsed.map((c) => c.method) : [parsed.method];
  });
  return { result, requests };
}
