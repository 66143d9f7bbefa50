/**
 * Capacity of a wallet's channel accounts on the chain B emulator: with N accounts, N of the wallet's
 * transactions go out for one ledger (N - 1 placements, the last account kept for a cancel), and the same
 * accounts carry N more in the next one, so no account idles while work for it waits.
 */
import { describe, expect, it } from 'vitest';
import {
  accepted,
  adapterFor,
  approveAhead,
  BIG,
  cancelCommand,
  channels,
  placeCommand,
  fileHarness,
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
