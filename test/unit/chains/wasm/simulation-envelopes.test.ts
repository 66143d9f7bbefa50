/**
 * A read's simulation envelope is built once per contract, function and arguments: the same call sends the same
 * envelope, another argument another one, and the answers are each call's own.
 */
import { Address, Keypair, Networks, StrKey, nativeToScVal } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { WasmReader } from '../../../../src/chains/wasm/reads.ts';
import { WasmRpc } from '../../../../src/chains/wasm/rpc-client.ts';
import { createWasmMetrics } from '../../../../src/chains/wasm/metrics.ts';
import { silentLogger } from '../../../../src/telemetry/logger.ts';
import { Metrics } from '../../../../src/telemetry/metrics.ts';

const TOKEN = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';
const WALLET = Keypair.random().publicKey();
const OTHER = Keypair.random().publicKey();

describe('simulation envelopes of reads', () => {
  it('are the same for the same call and differ with the arguments; each answer is its own', async () => {
    const sent: string[] = [];
    const transport = async (_method: string, params: unknown) => {
      const envelope = (params as { transaction: string }).transaction;
      sent.push(envelope);
      // The balance asked for: the other account's when the envelope names it (the source is always WALLET).
      const amount = Buffer.from(envelope, 'base64').includes(Buffer.from(StrKey.decodeEd25519PublicKey(OTHER)))
        ? 7n
        : 5n;
      return {
        latestLedger: 10,
        transactionData: '',
        results: [{ auth: [], xdr: nativeToScVal(amount, { type: 'i128' }).toXDR('base64') }],
      };
    };
    const rpc = new WasmRpc(transport, createWasmMetrics(new Metrics()));
    const reader = new WasmReader(rpc, WALLET, Networks.TESTNET, silentLogger());
    const balance = async (who: string) => {
      const v = await reader.view(TOKEN, 'balance', [nativeToScVal(Address.fromString(who))]);
      return (v as { i128: { lo: bigint } }).i128.lo;
    };
    expect([await balance(WALLET), await balance(OTHER), await balance(WALLET)]).toEqual([5n, 7n, 5n]);
    expect(sent[0]).toBe(sent[2]);
    expect(sent[1]).not.toBe(sent[0]);
  });
});
