/**
 * What an `eth_sendRawTransaction` failure means for the nonce. Only answers that prove the transaction was not
 * taken free or move the nonce; anything else (no answer, a timeout, a node that mines on receipt and reports
 * the revert as an error) leaves the fate unknown, and the receipt decides. Messages differ between geth, erigon
 * and Hardhat's EDR; the patterns cover all three.
 */
import { rpcFailureOf } from './json-rpc.ts';
import type { EvmRpc } from './rpc-client.ts';

export type SendVerdict =
  /** The exact transaction is already in the node's pool: as good as sent. */
  | { readonly kind: 'known' }
  /** The nonce is already used on chain. */
  | { readonly kind: 'nonce_too_low'; readonly message: string }
  /** Another transaction holds the nonce in the pool and this one does not pay enough to replace it. */
  | { readonly kind: 'underpriced'; readonly message: string }
  /** A lower nonce of the wallet is missing from the pool (nodes that do not queue, such as an automining one). */
  | { readonly kind: 'nonce_too_high'; readonly message: string }
  /** Refused for good (funds, fees, gas, chain id...): never applied, the nonce is free. */
  | { readonly kind: 'refused'; readonly message: string }
  /** Fate unknown: the transaction may be in the pool or even mined. */
  | { readonly kind: 'uncertain'; readonly message: string };

const KNOWN = /already known|known transaction|already imported|already in (the )?(tx)?pool|already exists/i;
const NONCE_LOW = /nonce too low|nonce is too low|nonce has already been used|old nonce|invalid nonce.*lower/i;
const REPLACEMENT = /replacement (transaction )?underpriced|replacement fee too low|could not replace existing tx/i;
const NONCE_HIGH = /nonce too high|nonce gap|nonce is too high/i;
const REFUSED =
  /insufficient funds|enough funds|underpriced|fee too low|less than (the )?(block )?base ?fee|below (the )?base ?fee|intrinsic gas too low|gas limit|exceeds block gas|invalid sender|invalid signature|invalid chain ?id|chain ?id mismatch|incompatible with chain|only replay-protected|exceeds the configured cap|not supported|oversized data|invalid transaction|rlp/i;

export function sendVerdict(error: unknown): SendVerdict {
  const f = rpcFailureOf(error);
  if (f === null) return { kind: 'uncertain', message: error instanceof Error ? error.message : String(error) };
  const message = f.rpcMessage;
  if (f.kind !== 'rpc') return { kind: 'uncertain', message };
  // A node that answered with revert data executed the transaction (Hardhat reports a mined revert this way).
  if (f.data !== null) return { kind: 'uncertain', message };
  if (KNOWN.test(message)) return { kind: 'known' };
  if (NONCE_LOW.test(message)) return { kind: 'nonce_too_low', message };
  if (REPLACEMENT.test(message)) return { kind: 'underpriced', message };
  if (NONCE_HIGH.test(message)) return { kind: 'nonce_too_high', message };
  if (REFUSED.test(message) || f.rpcCode === -32602) return { kind: 'refused', message };
  return { kind: 'uncertain', message };
}

export type BroadcastResult = { readonly kind: 'sent' } | SendVerdict;

/** Sends a signed transaction and classifies the answer; never throws. */
export async function broadcast(rpc: EvmRpc, raw: string): Promise<BroadcastResult> {
  try {
    await rpc.sendRawTransaction(raw);
    return { kind: 'sent' };
  } catch (e) {
    return sendVerdict(e);
  }
}
