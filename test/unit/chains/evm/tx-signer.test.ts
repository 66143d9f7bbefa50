import { Transaction, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { decodeSigned, TxSigner } from '../../../../src/chains/evm/tx-signer.ts';

const KEY = `0x${'42'.repeat(32)}`;
const payload = { to: '0x5174c2b8Cb5Aaed0303ce69793Dc3f1Ee00de8df', data: '0x1234', value: 0n, gasLimit: 100_000n };
const fees = { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };

describe('chain A signing', () => {
  it('signs the same EIP-1559 transaction as an ethers Wallet, with its hash, and reads it back from the journal form', async () => {
    const signed = new TxSigner(KEY, 80002n).sign(payload, 7n, fees);
    const expected = await new Wallet(KEY).signTransaction({ type: 2, chainId: 80002n, nonce: 7, ...payload, ...fees });
    expect(signed.raw).toBe(expected);
    expect(signed.hash).toBe(Transaction.from(expected).hash);
    expect(decodeSigned(signed.raw)).toEqual({ ...signed, payload: { ...payload, to: payload.to } });
  });

  it('shows only its address when serialised', () => {
    const signer = new TxSigner(KEY, 1n);
    expect(JSON.stringify(signer)).toBe(JSON.stringify({ address: new Wallet(KEY).address }));
  });
});
