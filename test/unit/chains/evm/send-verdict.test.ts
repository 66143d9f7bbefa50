import { describe, expect, it } from 'vitest';
import { rpcFailure } from '../../../../src/chains/evm/json-rpc.ts';
import { sendVerdict } from '../../../../src/chains/evm/send-verdict.ts';

const node = (message: string, data: string | null = null) =>
  rpcFailure('eth_sendRawTransaction', 'rpc', message, { rpcCode: -32000, data });

describe('what a refused broadcast means for the nonce', () => {
  it('reads the answers of geth, erigon and Hardhat EDR', () => {
    const cases: [string, string][] = [
      ['already known', 'known'],
      ['Known transaction: 0x5a2f', 'known'],
      ['nonce too low', 'nonce_too_low'],
      ['Transaction nonce too low. Expected nonce to be at least 1 but got 0.', 'nonce_too_low'],
      ['replacement transaction underpriced', 'underpriced'],
      [
        'Replacement transaction underpriced. A gasPrice/maxFeePerGas of at least 2200000000 is necessary',
        'underpriced',
      ],
      [
        "Nonce too high. Expected nonce to be 2 but got 7. Note that transactions can't be queued when automining.",
        'nonce_too_high',
      ],
      ['insufficient funds for gas * price + value', 'refused'],
      [
        "Sender doesn't have enough funds to send tx. The max upfront cost is: 1 and the sender's balance is: 0.",
        'refused',
      ],
      ['transaction underpriced', 'refused'],
      ['max fee per gas less than block base fee', 'refused'],
      ['intrinsic gas too low', 'refused'],
      ['invalid chain id for signer', 'refused'],
      ['something new', 'uncertain'],
    ];
    for (const [message, kind] of cases) expect([message, sendVerdict(node(message)).kind]).toEqual([message, kind]);
  });

  it('leaves the fate open when the node executed the transaction or did not answer', () => {
    expect(sendVerdict(node('VM Exception while processing transaction: reverted', '0xfb8f41b2')).kind).toBe(
      'uncertain',
    );
    expect(sendVerdict(rpcFailure('eth_sendRawTransaction', 'transport', 'connection reset')).kind).toBe('uncertain');
    expect(sendVerdict(rpcFailure('eth_sendRawTransaction', 'malformed', 'reply is not JSON')).kind).toBe('uncertain');
    expect(sendVerdict(new Error('socket hang up')).kind).toBe('uncertain');
  });
});
