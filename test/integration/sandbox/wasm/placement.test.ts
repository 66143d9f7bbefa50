import { Address, nativeToScVal, scValToNative, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import {
  encodeWasmCrossIdentifier,
  encodeWasmOrderData,
  encodeWasmReportingData,
} from '../../../../src/core/encoding/wasm-order.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../../src/core/order-terms.ts';
import { fileHarness, submit, wallet } from '../../../support/sandbox/wasm/harness.ts';

const h = fileHarness();

const orderArgs = (user: string, quantity: bigint, price: bigint) => [
  new Address(user).toScVal(),
  nativeToScVal(encodeWasmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity, price })),
  nativeToScVal(encodeWasmCrossIdentifier(0n)),
  nativeToScVal(encodeWasmReportingData({ a: 0, b: 0, free: 0n })),
];

describe('order placement through the SDK', () => {
  it('loads an account with its sequence number', async () => {
    const kp = wallet(h, h.pair);
    const acct = await h.server.getAccount(kp.publicKey());
    expect(BigInt(acct.sequenceNumber())).toBe(BigInt(h.emu.latest.seq) << 32n);
  });

  it('places a resting buy: simulation, assembly, signature, inclusion, events and balances', async () => {
    const kp = wallet(h, h.pair);
    const before = h.pair.quote.balanceOf(kp.publicKey());
    const res = await submit(h, kp, h.pair.book.address, 'new_buy_order', orderArgs(kp.publicKey(), 1000n, 123_400n));
    expect(res.status).toBe('SUCCESS');
    const events = (
      await h.server.getEvents({
        startLedger: h.emu.latest.seq,
        filters: [{ type: 'contract', contractIds: [h.pair.book.address] }],
      })
    ).events;
    expect(events.map((e) => scValToNative(e.topic[0] as xdr.ScVal))).toEqual(['OrderReceived', 'NewBuyOrder']);
    expect(scValToNative(events[0]?.topic[1] as xdr.ScVal)).toBe(kp.publicKey());
    const id = scValToNative(events[0]?.topic[2] as xdr.ScVal) as bigint;
    expect(scValToNative(events[1]?.value as xdr.ScVal)[0]).toBe(id);
    expect(h.pair.book.book.buys.map((o) => o.id)).toContain(id);
    // 1 unit at 12.34 (quote native 10^7) locked with the 15 bp maker commission.
    expect(before - h.pair.quote.balanceOf(kp.publicKey())).toBe(123_400_000n + 185_100n);
  });
});
