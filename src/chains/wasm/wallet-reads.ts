/**
 * A chain B wallet's balances of several tokens and its XLM balance in one `getLedgerEntries` request. The
 * venue's tokens are Stellar asset contracts over classic assets (`name` is `CODE:ISSUER`), and such a contract
 * keeps an account's balance in the account's trustline: one ledger key per token, beside the account's own
 * entry (XLM, and the `native` asset contract). Each token's `name` is asked once; a token that is not a
 * classic asset's contract is asked its `balance` by simulation, as before.
 */
import { Address, StrKey, type xdr } from '@stellar/stellar-sdk';
import { DltError } from '../../core/errors.ts';
import type { WalletBalances } from '../types.ts';
import { assetOf, trustlineKey, type ClassicAsset, type WasmReader } from './reads.ts';
import { WasmRpc } from './rpc-client.ts';
import { integer, text, type ScVal } from './scval.ts';

type Asset = ClassicAsset | 'native' | null;

export class WalletReads {
  readonly #rpc: WasmRpc;
  readonly #reader: WasmReader;
  readonly #wallet: string;
  /** Each token's asset, from its `name` (a failed read is asked again next time). */
  readonly #assets = new Map<string, Promise<Asset>>();

  constructor(rpc: WasmRpc, reader: WasmReader, wallet: string) {
    this.#rpc = rpc;
    this.#reader = reader;
    this.#wallet = wallet;
  }

  #assetOf(token: string): Promise<Asset> {
    const known = this.#assets.get(token);
    if (known !== undefined) return known;
    const asset = this.#reader.view(token, 'name').then((v) => assetOf(text(v, 'name')));
    this.#assets.set(token, asset);
    asset.catch(() => this.#assets.delete(token));
    return asset;
  }

  async balances(tokens: readonly string[]): Promise<WalletBalances> {
    const assets = await Promise.allSettled(tokens.map((t) => this.#assetOf(t)));
    const account: xdr.LedgerKeyWire = {
      type: 0,
      account: { accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(this.#wallet) } },
    };
    const lines = new Map<string, xdr.LedgerKeyWire>();
    for (const [i, a] of assets.entries())
      if (a.status === 'fulfilled' && a.value !== null && a.value !== 'native')
        lines.set(tokens[i] as string, trustlineKey(this.#wallet, a.value));
    const custom = tokens.filter((_, i) => {
      const a = assets[i];
      return a?.status === 'fulfilled' && a.value === null;
    });
    const [{ entries }, simulated] = await Promise.all([
      this.#rpc.ledgerEntries([account, ...lines.values()]),
      Promise.allSettled(custom.map((t) => this.#reader.view(t, 'balance', [new Address(this.#wallet).toScVal()]))),
    ]);
    const own = entries.get(WasmRpc.keyB64(account));
    if (own?.type !== 0)
      throw new DltError('E_CHAIN_TX_REFUSED', `trading account ${this.#wallet} does not exist`, {
        details: { wallet: this.#wallet },
      });
    const native = own.account.balance;
    const amounts = new Map<string, bigint>();
    const failed = new Map<string, Error>();
    for (const [i, token] of tokens.entries()) {
      const a = assets[i] as PromiseSettledResult<Asset>;
      try {
        if (a.status === 'rejected') throw a.reason;
        if (a.value === 'native') amounts.set(token, native);
        else if (a.value === null) {
          const r = simulated[custom.indexOf(token)] as PromiseSettledResult<ScVal>;
          if (r.status === 'rejected') throw r.reason;
          amounts.set(token, integer(r.value, 'balance'));
        } else
          amounts.set(token, trustlineBalance(entries, lines.get(token) as xdr.LedgerKeyWire, token, this.#wallet));
      } catch (e) {
        failed.set(token, e instanceof Error ? e : new Error(String(e)));
      }
    }
    return { tokens: amounts, failed, native };
  }
}

/** The balance a trustline holds; a missing trustline is the token contract's error #13. */
function trustlineBalance(
  entries: ReadonlyMap<string, xdr.LedgerEntryDataWire>,
  key: xdr.LedgerKeyWire,
  token: string,
  wallet: string,
): bigint {
  const entry = entries.get(WasmRpc.keyB64(key));
  if (entry === undefined)
    throw new DltError('E_VENUE_TRUSTLINE_MISSING', `${wallet} has no trustline for the token ${token}`, {
      details: { wallet, contract: token },
    });
  if (entry.type !== 1)
    throw new DltError('E_CHAIN_RPC', 'a trustline key was answered with another entry type', {
      details: { kind: 'malformed', contract: token },
    });
  return entry.trustLine.balance;
}
