/**
 * Capacity of a wallet's channel accounts on the chain B emulator: with N accounts, N of the wallet's
 * transactions go out for one ledger (N - 1 placements, the last account kept for a cancel), and the same
 * accounts carry N more in the next one, so no account idles while work for it waits. Placements of different
 * pairs are simulated, signed and sent side by side, one per free account, not one after another.
 */
import { describe, expect, it } from 'vitest';
import { httpTransport, type RpcTransport } from '../../../../src/chains/wasm/json-rpc.ts';
import { whenTrue } from '../../../support/condition.ts';
import {
  accepted,
  adapterFor,
  approveAhead,
  BIG,
  cancelCommand,
  channels,
  placeCommand,
  enrol,
  fileHarness,
  freshBook,
  wallet,
} from '../../../support/chains/wasm/harness.ts';

const h = fileHarness();

const N = 32;

describe('channel accounts', () => {
  it(`${N} accounts carry ${N} transactions in one ledger, ledger after ledger`, async () => {
    const trader = wallet(h, { approve: BIG });
    const { adapter, store } = adapterFor(h, trader, { channelKeys: channels(h, N) });
    expect(adapter.sources).toHaveLength(N);
    await approveAhead(adapter, h.pair);
    const resting = [];
    for (const price of ['13.20', '13.40'])
      resting.push(await accepted(await adapter.submit(placeCommand(h, 'sell', '1', price))));
    const ledgers: number[] = [];
    for (const [round, order] of resting.entries()) {
      h.sleeper.hold();
      const subs = [];
      // Each submission resolves once its transaction is with the node: none waits for an account.
      for (let i = 0; i < N - 1; i++)
        subs.push(await adapter.submit(placeCommand(h, 'buy', '1', (11 + round * 0.8 + i * 0.02).toFixed(2))));
      subs.push(await adapter.submit(cancelCommand(h, 'sell', order.orderId as bigint)));
      expect(subs.filter((s) => h.emu.isPending(s.txHash as string))).toHaveLength(N);
      h.sleeper.open();
      const outcomes = await Promise.all(subs.map(accepted));
      // One ledger took all of them, each from an account of its own.
      expect(new Set(outcomes.map((o) => o.height)).size).toBe(1);
      expect(new Set(subs.map((s) => store.transactions.get(s.txHash as string)?.source)).size).toBe(N);
      ledgers.push(Number(outcomes[0]?.height));
    }
    expect(ledgers[1]).toBeGreaterThan(ledgers[0] as number);
    await adapter.close();
  });
});

/** The node's transport; after `hold()`, simulations wait until `open()`: how many are waiting shows what overlaps. */
function heldSimulations(url: string) {
  const inner = httpTransport(url, { timeoutMs: 10_000 });
  let held: (() => void)[] | null = null;
  const transport: RpcTransport = async (method, params) => {
    if (method === 'simulateTransaction' && held !== null) await new Promise<void>((go) => held?.push(go));
    return inner(method, params);
  };
  const open = () => {
    const waiting = held ?? [];
    held = null;
    for (const go of waiting) go();
  };
  const hold = () => {
    held = [];
  };
  return { transport, waiting: () => held?.length ?? 0, hold, open };
}

describe('placements side by side', () => {
  it('placements of different pairs are simulated and sent at once, one per free account', async () => {
    const books = ['side-a', 'side-b', 'side-c', 'side-d'].map((name) => freshBook(h, name));
    const trader = wallet(h, { approve: BIG }, books[0]?.d);
    for (const b of books.slice(1)) enrol(h, trader, { approve: BIG }, b.d);
    const held = heldSimulations(h.rpc.url);
    // Four accounts: three for placements, the fourth kept for a cancel.
    const { adapter, store } = adapterFor(h, trader, { channelKeys: channels(h, 4), transport: held.transport });
    for (const b of books) {
      await approveAhead(adapter, b.pair);
      await adapter.readPairState(b.pair);
    }
    held.hold();
    // No ledger closes on its own while the first three go out (the harness closes one at each pause).
    h.sleeper.hold();
    const subs = books.map((b) => adapter.submit(placeCommand(h, 'buy', '1', '11.00', { pair: b.pair })));
    // Three simulations wait at once, one per free account; the fourth placement waits for an account.
    await whenTrue(() => held.waiting() === 3, 'three placements simulated side by side');
    expect(held.waiting()).toBe(3);
    held.open();
    const firstThree = await Promise.all(subs.slice(0, 3));
    expect(firstThree.every((s) => s.txHash !== null)).toBe(true);
    h.ledger();
    h.sleeper.open();
    const sent = await Promise.all(subs);
    const outcomes = await Promise.all(sent.map(accepted));
    const sources = sent.map((s) => store.transactions.get(s.txHash as string)?.source);
    // The first three went out for one ledger on accounts of their own; the fourth took an account they freed.
    expect(new Set(outcomes.slice(0, 3).map((o) => o.height)).size).toBe(1);
    expect(new Set(sources.slice(0, 3)).size).toBe(3);
    expect(outcomes[3]?.height).toBeGreaterThan(outcomes[0]?.height as bigint);
    await adapter.close();
  });
});
