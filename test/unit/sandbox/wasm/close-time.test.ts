/**
 * Ledger close times follow the clock: ledgers closing faster than one a second share their second instead of
 * running the chain's time ahead of the clock (which made transactions with clock-based time bounds expire
 * in long runs with fast ledgers).
 */
import { describe, expect, it } from 'vitest';
import { WasmEmulator } from '../../../../src/sandbox/wasm/emulator.ts';

describe('ledger close times', () => {
  it('never run ahead of the clock, and never go back', () => {
    let now = Date.UTC(2026, 2, 2, 9, 0, 0, 100);
    const emu = new WasmEmulator({ clock: { now: () => now }, ledgerIntervalMs: 0 });
    const second = BigInt(Math.floor(now / 1000));
    const times: bigint[] = [];
    for (let i = 0; i < 8; i++) {
      now += 100;
      times.push(emu.closeLedger().ledger.closeTime);
    }
    expect(times).toEqual(Array.from({ length: 8 }, () => second));
    now += 1_000;
    expect(emu.closeLedger().ledger.closeTime).toBe(second + 1n);
    now -= 5_000;
    expect(emu.closeLedger().ledger.closeTime).toBe(second + 1n);
    expect(emu.latest.seq).toBe(emu.oldest.seq + 10);
  });
});
