/**
 * A round's placements reach the chain B node together: the simulations of the placements handed over at the
 * same moment leave as one JSON-RPC batch, and so do their signed transactions, each on its own channel
 * account. A node that refuses batches is asked one call at a time (src/chains/json-rpc-batch.ts).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { JSON_RPC_CHANNEL } from '../../../../src/chains/json-rpc-http.ts';
import {
  accepted,
  adapterFor,
  approveAhead,
  BIG,
  channels,
  fileHarness,
  placeCommand,
  wallet,
} from '../../../support/chains/wasm/harness.ts';

const h = fileHarness();

/** The methods of each HTTP request the adapter sent while `work` ran, a batch as its list of methods. */
async function requestsDuring(work: () => Promise<unknown>): Promise<string[][]> {
  const bodies: string[] = [];
  const listen = (m: unknown) => bodies.push((m as { body: string }).body);
  subscribe(JSON_RPC_CHANNEL, listen);
  try {
    await work();
  } finally {
    unsubscribe(JSON_RPC_CHANNEL, listen);
  }
  return bodies.map((b) => {
    const parsed = JSON.parse(b) as { method: string } | Array<{ method: string }>;
    return Array.isArray(parsed) ? parsed.map((c) => c.method) : [parsed.method];
  });
}

describe('placements handed over together', () => {
  it('are simulated in one batch and sent in one batch, each on its own channel account', async () => {
    const trader = wallet(h, { approve: BIG });
    const { adapter } = adapterFor(h, trader, { channelKeys: channels(h, 4) });
    await approveAhead(adapter, h.pair);
    // Every source's sequence number known first, as after the adapter's first transactions.
    const first = await Promise.all(
      ['10.00', '10.02', '10.04'].map((p) => adapter.submit(placeCommand(h, 'buy', '1', p))),
    );
    h.ledger();
    await Promise.all(first.map(accepted));
    const subs: Awaited<ReturnType<typeof adapter.submit>>[] = [];
    const requests = await requestsDuring(async () => {
      subs.push(
        ...(await Promise.all(['11.00', '11.02', '11.04'].map((p) => adapter.submit(placeCommand(h, 'buy', '1', p))))),
      );
    });
    const withMethod = (m: string) => requests.filter((r) => r.includes(m));
    // (A lone simulation before them is a read: the allowance, as of the new ledger.)
    expect(requests).toContainEqual(Array(3).fill('simulateTransaction'));
    expect(withMethod('sendTransaction')).toEqual([Array(3).fill('sendTransaction')]);
    h.ledger();
    const outcomes = await Promise.all(subs.map(accepted));
    expect(new Set(outcomes.map((o) => o.height)).size).toBe(1);
    await adapter.close();
  });
});
