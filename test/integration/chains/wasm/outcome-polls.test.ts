/**
 * How often the adapter asks the chain B node about a transaction it sent: not before a ledger after the one the
 * send's reply named has closed, and then once. A newer ledger named by any reply of the node (the follower's
 * getEvents, a read) wakes every outcome waiting for it, so the outcomes of one ledger are asked together.
 */
import { describe, expect, it } from 'vitest';
import { httpTransport, type RpcTransport } from '../../../../src/chains/wasm/json-rpc.ts';
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

/** The node's transport, counting getTransaction calls per transaction hash. */
function counting(url: string): { transport: RpcTransport; asked: Map<string, number> } {
  const inner = httpTransport(url, { timeoutMs: 10_000 });
  const asked = new Map<string, number>();
  const transport: RpcTransport = (method, params) => {
    if (method === 'getTransaction') {
      const hash = (params as { hash: string }).hash;
      asked.set(hash, (asked.get(hash) ?? 0) + 1);
    }
    return inner(method, params);
  };
  return { transport, asked };
}

describe('outcome polls', () => {
  it('asks about a sent transaction once, after the next ledger closed', async () => {
    const trader = wallet(h, { approve: BIG });
    const { transport, asked } = counting(h.rpc.url);
    const { adapter } = adapterFor(h, trader, { transport });
    await approveAhead(adapter, h.pair);
    const sub = await adapter.submit(placeCommand(h, 'buy', '1', '11.00'));
    await accepted(sub);
    expect(asked.get(sub.txHash as string)).toBe(1);
    await adapter.close();
  });

  it('a newer ledger in any reply wakes every outcome waiting for it', async () => {
    const trader = wallet(h, { approve: BIG });
    const { transport, asked } = counting(h.rpc.url);
    const { adapter } = adapterFor(h, trader, { transport, channelKeys: channels(h, 4) });
    await approveAhead(adapter, h.pair);
    // No ledger closes through the adapter's own pauses from here on.
    h.sleeper.hold();
    const subs = [];
    for (const price of ['11.00', '11.02', '11.04'])
      subs.push(await adapter.submit(placeCommand(h, 'buy', '1', price)));
    h.ledger();
    // A read names the new ledger: the three outcomes are asked for and found without another pause.
    await adapter.readWalletBalances([h.pair.baseToken]);
    const outcomes = await Promise.all(subs.map(accepted));
    expect(new Set(outcomes.map((o) => o.height)).size).toBe(1);
    expect(subs.map((s) => asked.get(s.txHash as string))).toEqual([1, 1, 1]);
    h.sleeper.open();
    await adapter.close();
  });
});
