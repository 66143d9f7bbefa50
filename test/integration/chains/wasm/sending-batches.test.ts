/**
 * A round's placements reach the chain B node together: the simulations of the placements handed over at the
 * same moment leave as one JSON-RPC batch, and so do their signed transactions, each on its own channel
 * account. A node that refuses batches is asked one call at a time (src/chains/json-rpc-batch.ts).
 */
import { describe, expect, it } from 'vitest';
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
import { requestsDuring } from '../../../support/chains/json-rpc-requests.ts';

const h = fileHarness();

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
    const { requests } = await requestsDuring(async () => {
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
