/** What a chain makes of a key or an address, for the parts that only name wallets and contracts. */
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import type { ChainKind } from '../core/pair.ts';

/** The wallet a private key (chain A, 0x hex) or secret seed (chain B, `S...`) signs for. */
export async function walletAddressOf(chain: ChainKind, key: string): Promise<string> {
  // ethers is loaded only when a chain A key is met: a chain B only command starts without it.
  if (chain === 'evm') return new (await import('ethers')).Wallet(key).address;
  return Keypair.fromSecret(key).publicKey();
}

/** A contract as the adapters name it: chain B contracts by their `C...` id (the venue's REST serves its hex). */
export function contractAddressOf(chain: ChainKind, address: string): string {
  if (chain === 'evm' || address.startsWith('C')) return address;
  return StrKey.encodeContract(Buffer.from(address.replace(/^0x/, ''), 'hex'));
}
