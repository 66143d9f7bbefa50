/**
 * The emulator keeps transactions and events for its retention window only (they live in memory): a
 * transaction applied before the window is NOT_FOUND, its events are gone, and what is kept stays the window's
 * worth however long the chain runs.
 */
import { nativeToScVal } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { fileHarness, submit, wallet } from '../../../support/sandbox/wasm/harness.ts';

const RETENTION = 5;
const h = fileHarness({ retentionLedgers: RETENTION });

/** One successful token call (an approval, which emits an event) in a ledger of its own; its hash. */
async function approveInOwnLedger(): Promise<string> {
  const source = wallet(h, h.pair);
  const res = await submit(h, source, h.pair.base.address, 'approve', [
    nativeToScVal(source.publicKey(), { type: 'address' }),
    nativeToScVal(h.pair.book.address, { type: 'address' }),
    nativeToScVal(1n, { type: 'i128' }),
    nativeToScVal(h.emu.latest.seq + 100, { type: 'u32' }),
  ]);
  expect(res.status).toBe('SUCCESS');
  return res.txHash;
}

describe('retention window', () => {
  it('forgets transactions and events older than the window, and keeps the window whatever has passed', async () => {
    const first = await approveInOwnLedger();
    const firstLedger = h.emu.latest.seq;
    const hashes = [first];
    for (let i = 0; i < 3 * RETENTION; i++) hashes.push(await approveInOwnLedger());
    expect((await h.server.getTransaction(first)).status).toBe('NOT_FOUND');
    expect(h.emu.oldest.seq).toBe(h.emu.latest.seq - RETENTION + 1);
    expect(h.emu.oldest.seq).toBeGreaterThan(firstLedger);
    // Exactly the transactions of the retained ledgers are kept, and all of their events.
    const kept = hashes.filter((x) => h.emu.transaction(x) !== undefined);
    expect(kept).toEqual(hashes.slice(-RETENTION));
    const events = h.emu
      .events()
      .query({ ledger: 0, txIndex: 0, opIndex: 0, eventIndex: 0 }, h.emu.latest.seq + 1, [], 10_000);
    const withEvents = new Set(events.map((e) => e.txHash));
    expect(hashes.filter((x) => withEvents.has(x))).toEqual(kept);
    expect(Math.min(...events.map((e) => e.ledger))).toBeGreaterThanOrEqual(h.emu.oldest.seq);
  });
});
