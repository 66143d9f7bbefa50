import { describe, expect, it } from 'vitest';
import { NonceSequencer } from '../../../../src/chains/evm/nonce-sequencer.ts';
import { silentLogger } from '../../../../src/telemetry/logger.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import { hex, scripted } from '../../../support/chains/evm/scripted-rpc.ts';

const WALLET = '0x1111111111111111111111111111111111111111';

function sequencer(pending: { v: bigint }) {
  const s = scripted({ eth_getTransactionCount: (p) => (p[1] === 'pending' ? hex(pending.v) : '0x0') });
  return { s, seq: new NonceSequencer(s.client, WALLET, s.evm, silentLogger()) };
}

describe('chain A nonce sequencer', () => {
  it('starts above the node pending count and above every unsettled journaled nonce', async () => {
    const { seq } = sequencer({ v: 5n });
    await seq.init([3n, 7n]);
    expect([seq.allocate(), seq.allocate()]).toEqual([8n, 9n]);
  });

  it('hands out numbers in call order and takes back only the last one', async () => {
    const { seq } = sequencer({ v: 0n });
    await seq.init([]);
    const [a, b] = [seq.allocate(), seq.allocate()];
    expect(() => seq.release(a)).toThrow(/not the last/);
    seq.release(b);
    expect(seq.allocate()).toBe(b);
  });

  it('resyncs to the pending count but never below a nonce still in flight, and counts why', async () => {
    const pending = { v: 2n };
    const { s, seq } = sequencer(pending);
    await seq.init([]);
    for (let i = 0; i < 4; i++) seq.allocate();
    pending.v = 9n;
    expect(await seq.resync('nonce_too_low', [2n, 3n])).toBe(9n);
    expect(seq.allocate()).toBe(9n);
    pending.v = 1n;
    await seq.resync('nonce_too_high', [4n, 6n]);
    expect(seq.next).toBe(7n);
    expect(await metricValue(s.metrics, 'dltmm_evm_nonce_resyncs_total', { reason: 'nonce_too_low' })).toBe(1);
  });

  it('refuses to hand out numbers before it knows the chain', () => {
    expect(() => sequencer({ v: 0n }).seq.allocate()).toThrow(/before init/);
  });
});
