/**
 * Reading chain B state: contract views through simulation (the order book's state, `pair-state.ts`; token
 * `balance`, `allowance`, `name`), and ledger entries (the trading account's XLM and sequence, its trustlines).
 * Views asked for every pair at once (the books' state on the phase poll) leave together in one batch.
 */
import { Account, Address, Contract, StrKey, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { DltError, isDltError } from '../../core/errors.ts';
import type { Side } from '../../core/order-terms.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Balances, BalancesAt, OnChainPairState, OrderProbe, PairBinding, TokenRole } from '../types.ts';
import { cancelCall } from './calls.ts';
import { WasmRpc } from './rpc-client.ts';
import { readPairState } from './pair-state.ts';
import { bool, decodeScVal, integer, text, type ScVal } from './scval.ts';
import { errorFromSimulation } from './tx-result.ts';
import { BoundedMemo } from '../../core/bounded-memo.ts';

/** How many simulation envelopes a reader keeps. */
const ENVELOPES_KEPT = 1024;

export class WasmReader {
  readonly #rpc: WasmRpc;
  /** The same node over a transport whose calls made together leave as one batch. */
  readonly #gathered: WasmRpc;
  readonly #wallet: string;
  readonly #passphrase: string;
  readonly #logger: Logger;
  /**
   * Simulation envelopes by contract, function and arguments: one call's is the same every time (the trading
   * account at sequence 0, the same fee and no time bound), and building it with the SDK costs more than the
   * rest of a read. Bounded: past the limit it starts again.
   */
  readonly #envelopes = new BoundedMemo<string, string>(ENVELOPES_KEPT);

  constructor(rpc: WasmRpc, wallet: string, passphrase: string, logger: Logger, gathered: WasmRpc = rpc) {
    this.#rpc = rpc;
    this.#gathered = gathered;
    this.#wallet = wallet;
    this.#passphrase = passphrase;
    this.#logger = logger;
  }

  /** One contract call simulated with the trading account as source (nothing is signed or sent). */
  #simulate(contract: string, fn: string, args: xdr.ScVal[], rpc = this.#rpc) {
    const key = `${contract}|${fn}|${args.map((a) => a.toXDR('base64')).join('|')}`;
    let envelope = this.#envelopes.get(key);
    if (envelope === undefined) {
      envelope = new TransactionBuilder(new Account(this.#wallet, '0'), {
        fee: '100',
        networkPassphrase: this.#passphrase,
      })
        .addOperation(new Contract(contract).call(fn, ...args))
        .setTimeout(0)
        .build()
        .toXDR();
      this.#envelopes.set(key, envelope);
    }
    return rpc.simulate(envelope);
  }

  /**
   * The return value of a read-only contract call, simulated with the trading account as source; `together`:
   * in one batch with the other views asked at the same time.
   */
  async view(contract: string, fn: string, args: xdr.ScVal[] = [], together = false): Promise<ScVal> {
    return (await this.viewAt(contract, fn, args, together)).value;
  }

  /** A view with the ledger the node simulated it on. */
  async viewAt(
    contract: string,
    fn: string,
    args: xdr.ScVal[] = [],
    together = false,
  ): Promise<{ value: ScVal; ledger: number }> {
    const sim = await this.#simulate(contract, fn, args, together ? this.#gathered : this.#rpc);
    if (!sim.ok) throw errorFromSimulation(sim.error, { contract, fn });
    try {
      return { value: decodeScVal(sim.retval), ledger: sim.latestLedger };
    } catch (e) {
      throw new DltError('E_CHAIN_RPC', `${fn}: simulation returned no readable value`, {
        details: { contract, fn, kind: 'malformed' },
        cause: e,
      });
    }
  }

  /** Simulates a call that would change state (nothing is signed): whether it would succeed, or its refusal. */
  async simulates(
    contract: string,
    fn: string,
    args: xdr.ScVal[],
  ): Promise<{ ok: true; ledger: number } | { ok: false; error: DltError; ledger: number }> {
    const sim = await this.#simulate(contract, fn, args);
    return sim.ok
      ? { ok: true, ledger: sim.latestLedger }
      : { ok: false, error: errorFromSimulation(sim.error, { contract, fn }), ledger: sim.latestLedger };
  }

  /** The order book's configuration and phase, asked in one batch with those of the other books asked together. */
  pairState(pair: PairBinding): Promise<OnChainPairState> {
    return readPairState((contract, fn) => this.view(contract, fn, [], true), pair, this.#logger);
  }

  async balances(pair: PairBinding): Promise<Balances> {
    const [base, quote, native] = await Promise.all([
      this.tokenBalance(pair.baseToken),
      this.tokenBalance(pair.quoteToken),
      this.native(),
    ]);
    return { base, quote, native };
  }

  /**
   * Base and quote as of one ledger: both are read again while a ledger closes between them (three times at
   * most). The native balance is read beside them.
   */
  async balancesAt(pair: PairBinding): Promise<BalancesAt> {
    for (let attempt = 0; ; attempt++) {
      const [base, quote, native] = await Promise.all([
        this.tokenBalanceAt(pair.baseToken),
        this.tokenBalanceAt(pair.quoteToken),
        this.native(),
      ]);
      if (base.ledger === quote.ledger)
        return { base: base.amount, quote: quote.amount, native, height: BigInt(base.ledger) };
      if (attempt >= 2) {
        throw new DltError(
          'E_CHAIN_RPC',
          `balances of ${pair.pairId} were read on different ledgers (${base.ledger}, ${quote.ledger}) three times`,
          { details: { kind: 'transport', pair: pair.pairId } },
        );
      }
    }
  }

  /** A cancellation simulated on the latest ledger: contract error #8 (order not found) says the order is gone. */
  async probeOrder(pair: PairBinding, side: Side, orderId: bigint): Promise<OrderProbe> {
    const call = cancelCall(pair.orderBook, this.#wallet, side, orderId);
    try {
      const r = await this.simulates(call.contract, call.fn, [...call.args]);
      if (r.ok) return { onBook: true, height: BigInt(r.ledger) };
      return r.error.code === 'E_VENUE_ORDER_NOT_FOUND'
        ? { onBook: false, height: BigInt(r.ledger) }
        : { onBook: null, height: BigInt(r.ledger), reason: `${r.error.code}: ${r.error.message}` };
    } catch (e) {
      if (!isDltError(e)) throw e;
      return { onBook: null, height: 0n, reason: `${e.code}: ${e.message}` };
    }
  }

  async tokenBalance(token: string): Promise<bigint> {
    return integer(await this.view(token, 'balance', [new Address(this.#wallet).toScVal()]), 'balance');
  }

  /** The wallet's balance of a token with the ledger it is of. */
  async tokenBalanceAt(token: string): Promise<{ amount: bigint; ledger: number }> {
    const { value, ledger } = await this.viewAt(token, 'balance', [new Address(this.#wallet).toScVal()]);
    return { amount: integer(value, 'balance'), ledger };
  }

  async allowance(token: string, spender: string): Promise<bigint> {
    return integer(
      await this.view(token, 'allowance', [new Address(this.#wallet).toScVal(), new Address(spender).toScVal()]),
      'allowance',
    );
  }

  async native(): Promise<bigint> {
    const account = await this.#rpc.account(this.#wallet);
    if (account === null)
      throw new DltError('E_CHAIN_TX_REFUSED', `trading account ${this.#wallet} does not exist`, {
        details: { wallet: this.#wallet },
      });
    return account.balance;
  }

  /** Trustline and authorization of the wallet for both tokens of the pair; a clear error for the first problem. */
  async checkTrustlines(pair: PairBinding): Promise<void> {
    const roles: TokenRole[] = ['base', 'quote'];
    const assets = await Promise.all(
      roles.map(async (role) => ({
        role,
        token: role === 'base' ? pair.baseToken : pair.quoteToken,
        asset: assetOf(text(await this.view(role === 'base' ? pair.baseToken : pair.quoteToken, 'name'), 'name')),
      })),
    );
    const keyed = assets.flatMap((a) =>
      a.asset === null || a.asset === 'native' ? [] : [{ ...a, key: trustlineKey(this.#wallet, a.asset) }],
    );
    const { entries } =
      keyed.length === 0
        ? { entries: new Map<string, xdr.LedgerEntryDataWire>() }
        : await this.#rpc.ledgerEntries(keyed.map((k) => k.key));
    for (const a of assets) {
      const details = { pair: pair.pairId, tokenRole: a.role, contract: a.token, wallet: this.#wallet };
      if (a.asset === 'native') continue;
      if (a.asset === null) {
        // Not a classic asset's contract: ask the token itself.
        const authorized = bool(
          await this.view(a.token, 'authorized', [new Address(this.#wallet).toScVal()]),
          'authorized',
        );
        if (!authorized)
          throw new DltError(
            'E_VENUE_TOKEN_NOT_AUTHORIZED',
            `${this.#wallet} is not authorized for the ${a.role} token ${a.token}`,
            { details },
          );
        continue;
      }
      const entry = entries.get(WasmRpc.keyB64(trustlineKey(this.#wallet, a.asset)));
      const named = { ...details, asset: `${a.asset.code}:${a.asset.issuer}` };
      if (entry === undefined)
        throw new DltError(
          'E_VENUE_TRUSTLINE_MISSING',
          `${this.#wallet} has no trustline for the ${a.role} token ${a.asset.code} (contract error #13)`,
          { details: named },
        );
      if (entry.type !== 1 || (entry.trustLine.flags & 1) === 0) {
        throw new DltError(
          'E_VENUE_TOKEN_NOT_AUTHORIZED',
          `${this.#wallet} is not authorized to hold the ${a.role} token ${a.asset.code} (contract error #11)`,
          { details: named },
        );
      }
    }
  }
}

export interface ClassicAsset {
  readonly code: string;
  readonly issuer: string;
}

/** A Stellar asset contract names its asset `CODE:ISSUER` (or `native`); anything else is a custom token. */
export function assetOf(name: string): ClassicAsset | 'native' | null {
  if (name === 'native') return 'native';
  const m = /^([A-Za-z0-9]{1,12}):(G[A-Z2-7]{55})$/.exec(name);
  if (m === null || !StrKey.isValidEd25519PublicKey(m[2] as string)) return null;
  return { code: m[1] as string, issuer: m[2] as string };
}

export function trustlineKey(account: string, a: ClassicAsset): xdr.LedgerKeyWire {
  const code = new Uint8Array(a.code.length <= 4 ? 4 : 12);
  code.set(Buffer.from(a.code, 'ascii'));
  const issuer = { type: 0 as const, ed25519: StrKey.decodeEd25519PublicKey(a.issuer) };
  const asset: xdr.TrustLineAssetWire =
    code.length === 4
      ? { type: 1, alphaNum4: { assetCode: code, issuer } }
      : { type: 2, alphaNum12: { assetCode: code, issuer } };
  return { type: 1, trustLine: { accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(account) }, asset } };
}
