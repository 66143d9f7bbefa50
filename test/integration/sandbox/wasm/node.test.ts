/** The node closes ledgers on its own timer and the SDK sees them advance. */
import { rpc } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../src/sandbox/net.ts';
import type { ClosedLedger } from '../../../../src/sandbox/wasm/emulator.ts';
import { startWasmNode, type WasmNode } from '../../../../src/sandbox/wasm/node.ts';

let node: WasmNode;
beforeAll(async () => {
  node = await startWasmNode({ port: await freePort(), ledgerIntervalMs: 20 });
});
afterAll(() => node.stop());

describe('the chain B node', () => {
  it('closes ledgers on its interval, reported to observers and visible through getLatestLedger', async () => {
    const server = new rpc.Server(node.rpc.url, { allowHttp: true });
    const start = (await server.getLatestLedger()).sequence;
    const closed = await new Promise<ClosedLedger>((resolve) => {
      const off = node.emulator.onLedgerClosed((c) => {
        if (c.ledger.seq >= start + 3) {
          off();
          resolve(c);
        }
      });
    });
    expect(closed.ledger.seq).toBe(start + 3);
    expect((await server.getLatestLedger()).sequence).toBeGreaterThanOrEqual(start + 3);
  });
});
