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

  it('signs byte for byte as ethers for zero and large fields, empty data, and signatures with a short r or s', async () => {
    const signer = new TxSigner(KEY, 31_337n);
    const wallet = new Wallet(KEY);
    const shapes = [
      {
        payload: { ...payload, value: 0n, data: '0x' },
        nonce: 0n,
        fees: { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
      },
      { payload: { ...payload, value: 10n ** 30n, data: `0x${'ab'.repeat(1_000)}` }, nonce: 2n ** 40n, fees },
    ];
    // A signature word with a leading zero byte is encoded shorter: look for one of each among nonces.
    const short = { r: false, s: false };
    for (let nonce = 1n; nonce < 2_000n && !(short.r && short.s); nonce++) {
      const sig = Transaction.from(signer.sign(payload, nonce, fees).raw).signature;
      const r = sig?.r.startsWith('0x00') === true;
      const s = sig?.s.startsWith('0x00') === true;
      if ((r && !short.r) || (s && !short.s)) shapes.push({ payload, nonce, fees });
      short.r ||= r;
      short.s ||= s;
    }
    expect(short).toEqual({ r: true, s: true });
    for (const shape of shapes) {
      const signed = signer.sign(shape.payload, shape.nonce, shape.fees);
      const expected = await wallet.signTransaction({
        type: 2,
        chainId: 31_337n,
        nonce: Number(shape.nonce),
        ...shape.payload,
        ...shape.fees,
      });
      expect(signed.raw).toBe(expected);
      expect(signed.hash).toBe(Transaction.from(expected).hash);
    }
  });

  it('shows only its address when serialised', () => {
    const signer = new TxSigner(KEY, 1n);
    expect(JSON.stringify(signer)).toBe(JSON.stringify({ address: new Wallet(KEY).address }));
  });
});
