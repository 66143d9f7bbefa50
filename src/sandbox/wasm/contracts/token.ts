/**
 * The venue's tokens: a Stellar asset contract over a classic asset (so an account's balance lives in its
 * trustline, a contract's in a `Balance` entry, allowances in temporary `Allowance` entries, exactly where
 * the SDK's `getAssetBalance`/`getSACBalance` look), plus the venue's `trust(addr)` to open a trustline.
 * Error codes are the asset contract's: #8 negative amount, #9 allowance, #10 balance, #11 deauthorized,
 * #13 trustline missing. Events follow SEP-41 with the asset name as the last topic.
 */
import { Asset, StrKey, xdr } from '@stellar/stellar-sdk';
import { DltError } from '../../../core/errors.ts';
import { hostFail } from '../host-error.ts';
import { emit, touchData, type ContractImpl, type DataEntry, type Env, type Frame } from '../host.ts';
import { read, scv, toScAddress, type ScVal } from '../scval.ts';
import { dispatch } from './entry-points.ts';
import { TOKEN_ENTRY_POINTS } from './token-entry-points.ts';

interface Holding {
  amount: bigint;
  authorized: boolean;
  lastModified: number;
}

interface Allowance {
  amount: bigint;
  expirationLedger: number;
  lastModified: number;
}

export interface TokenConfig {
  readonly code: string;
  /** G... issuer of the classic asset; also the token's admin. */
  readonly issuer: string;
  /** Native scale as decimals (10^decimals); informative, amounts are always native integers. */
  readonly decimals: number;
  /** Regulated asset: a new trustline starts deauthorized until the admin authorizes it. */
  readonly authRequired: boolean;
}

const INT64_MAX = (1n << 63n) - 1n;
/** An allowance may be set at most this many ledgers ahead (the network's maximum entry TTL). */
export const MAX_ALLOWANCE_LEDGERS = 3_110_400;

export class TokenContract implements ContractImpl {
  readonly address: string;
  readonly config: TokenConfig;
  readonly name: string;
  readonly asset: Asset;
  readonly executable: xdr.ContractExecutableWire = { type: 1 };
  readonly holdings = new Map<string, Holding>();
  readonly allowances = new Map<string, Allowance>();

  constructor(config: TokenConfig, passphrase: string) {
    this.config = config;
    this.asset = new Asset(config.code, config.issuer);
    this.name = `${config.code}:${config.issuer}`;
    this.address = this.asset.contractId(passphrase);
  }

  call(env: Env, frame: Frame, fn: string, args: readonly ScVal[]): ScVal {
    return dispatch(TOKEN_ENTRY_POINTS, 'token', { contract: this, env, frame, fn, args });
  }

  trust(env: Env, who: string): void {
    if (isContract(who) || this.holdings.has(who)) return;
    this.touchHolding(env, who, true);
    env.journal.set(this.holdings, who, {
      amount: 0n,
      authorized: !this.config.authRequired,
      lastModified: env.ledgerSeq,
    });
  }

  allowance(env: Env, from: string, spender: string): bigint {
    touchData(env, this.address, allowanceKey(from, spender), 'temporary', false);
    const a = this.allowances.get(`${from}|${spender}`);
    return a === undefined || a.expirationLedger < env.ledgerSeq ? 0n : a.amount;
  }

  approve(env: Env, from: string, spender: string, amount: bigint, expirationLedger: number): void {
    if (amount < 0n) fail(8, `negative amount ${amount}`);
    if (amount > 0n && expirationLedger < env.ledgerSeq) {
      throw hostFail(
        'value',
        'invalidInput',
        `expiration_ledger ${expirationLedger} is before the current ledger ${env.ledgerSeq}`,
      );
    }
    if (expirationLedger > env.ledgerSeq + MAX_ALLOWANCE_LEDGERS) {
      throw hostFail(
        'value',
        'invalidInput',
        `expiration_ledger ${expirationLedger} is beyond the maximum entry lifetime`,
      );
    }
    touchData(env, this.address, allowanceKey(from, spender), 'temporary', true);
    env.journal.set(this.allowances, `${from}|${spender}`, { amount, expirationLedger, lastModified: env.ledgerSeq });
    emit(
      env,
      this.address,
      [scv.sym('approve'), scv.address(from), scv.address(spender), scv.str(this.name)],
      scv.vec([scv.i128(amount), scv.u32(expirationLedger)]),
    );
  }

  transfer(env: Env, from: string, to: string, amount: bigint): void {
    this.move(env, from, to, amount);
    emit(
      env,
      this.address,
      [scv.sym('transfer'), scv.address(from), scv.address(to), scv.str(this.name)],
      scv.i128(amount),
    );
  }

  transferFrom(env: Env, spender: string, from: string, to: string, amount: bigint): void {
    if (amount < 0n) fail(8, `negative amount ${amount}`);
    const left = this.allowance(env, from, spender);
    if (left < amount) fail(9, `allowance of ${spender} over ${from} is ${left}, needs ${amount}`);
    const a = this.allowances.get(`${from}|${spender}`) as Allowance | undefined;
    if (a !== undefined && amount > 0n) {
      touchData(env, this.address, allowanceKey(from, spender), 'temporary', true);
      env.journal.set(this.allowances, `${from}|${spender}`, {
        ...a,
        amount: a.amount - amount,
        lastModified: env.ledgerSeq,
      });
    }
    this.transfer(env, from, to, amount);
  }

  mint(env: Env, to: string, amount: bigint): void {
    if (amount < 0n) fail(8, `negative amount ${amount}`);
    this.credit(env, to, amount);
    emit(env, this.address, [scv.sym('mint'), scv.address(to), scv.str(this.name)], scv.i128(amount));
  }

  setAuthorized(env: Env, who: string, authorize: boolean): void {
    const h = this.holding(env, who, true);
    env.journal.set(this.holdings, who, { ...h, authorized: authorize, lastModified: env.ledgerSeq });
    emit(env, this.address, [scv.sym('set_authorized'), scv.address(who), scv.str(this.name)], scv.bool(authorize));
  }

  /** The `balance` entry point: a contract's `Balance` entry, an account's trustline (#13 without one). */
  balance(env: Env, who: string): bigint {
    return isContract(who) ? (this.holdings.get(who)?.amount ?? 0n) : this.holding(env, who, false).amount;
  }

  /** The `authorized` entry point: whether `who` may hold the asset (#13 for an account without a trustline). */
  authorized(env: Env, who: string): boolean {
    return this.holding(env, who, false).authorized;
  }

  /** Balance for the order book's funding checks: an account without a trustline simply has nothing. */
  balanceOf(who: string): bigint {
    return this.holdings.get(who)?.amount ?? 0n;
  }

  private move(env: Env, from: string, to: string, amount: bigint): void {
    if (amount < 0n) fail(8, `negative amount ${amount}`);
    const h = this.holding(env, from, true);
    if (!h.authorized) fail(11, `${from} is not authorized to hold ${this.config.code}`);
    if (h.amount < amount) fail(10, `balance of ${from} is ${h.amount}, needs ${amount}`);
    env.journal.set(this.holdings, from, { ...h, amount: h.amount - amount, lastModified: env.ledgerSeq });
    this.credit(env, to, amount);
  }

  private credit(env: Env, to: string, amount: bigint): void {
    const h = isContract(to)
      ? (this.holdings.get(to) ?? { amount: 0n, authorized: true, lastModified: env.ledgerSeq })
      : this.holding(env, to, true);
    if (!h.authorized) fail(11, `${to} is not authorized to hold ${this.config.code}`);
    if (!isContract(to) && h.amount + amount > INT64_MAX) fail(12, `balance of ${to} would overflow`);
    this.touchHolding(env, to, true);
    env.journal.set(this.holdings, to, { ...h, amount: h.amount + amount, lastModified: env.ledgerSeq });
  }

  private holding(env: Env, who: string, write: boolean): Holding {
    this.touchHolding(env, who, write);
    const h = this.holdings.get(who);
    if (h !== undefined) return h;
    if (isContract(who)) return { amount: 0n, authorized: true, lastModified: env.ledgerSeq };
    return fail(13, `${who} has no trustline for ${this.config.code}`);
  }

  private touchHolding(env: Env, who: string, write: boolean): void {
    if (env.footprint === null) return;
    if (isContract(who)) touchData(env, this.address, balanceKey(who), 'persistent', write);
    else
      env.footprint.touch({ type: 1, trustLine: { accountId: accountKey(who), asset: this.trustLineAsset() } }, write);
  }

  trustLineAsset(): xdr.TrustLineAssetWire {
    const code = new Uint8Array(this.config.code.length <= 4 ? 4 : 12);
    code.set(Buffer.from(this.config.code, 'ascii'));
    const issuer = accountKey(this.config.issuer);
    return code.length === 4
      ? { type: 1, alphaNum4: { assetCode: code, issuer } }
      : { type: 2, alphaNum12: { assetCode: code, issuer } };
  }

  dataEntry(key: ScVal, durability: 'persistent' | 'temporary', ledgerSeq: number): DataEntry | undefined {
    if (key.type !== 16 || key.vec === null || key.vec[0]?.type !== 15) return undefined;
    const kind = key.vec[0].sym.toString();
    if (kind === 'Balance' && durability === 'persistent' && key.vec[1]?.type === 18) {
      const who = read.address(key.vec[1], 'id');
      const h = isContract(who) ? this.holdings.get(who) : undefined;
      if (h === undefined) return undefined;
      return {
        val: scv.struct({ amount: scv.i128(h.amount), authorized: scv.bool(h.authorized), clawback: scv.bool(false) }),
        lastModified: h.lastModified,
        liveUntil: ledgerSeq + MAX_ALLOWANCE_LEDGERS,
      };
    }
    if (kind === 'Allowance' && durability === 'temporary' && key.vec[1]?.type === 17 && key.vec[1].map !== null) {
      const fields = new Map(key.vec[1].map.map((e) => [e.key.type === 15 ? e.key.sym.toString() : '', e.val]));
      const a = this.allowances.get(
        `${read.address(fields.get('from'), 'from')}|${read.address(fields.get('spender'), 'spender')}`,
      );
      if (a === undefined || a.expirationLedger < ledgerSeq) return undefined;
      return {
        val: scv.struct({ amount: scv.i128(a.amount), expiration_ledger: scv.u32(a.expirationLedger) }),
        lastModified: a.lastModified,
        liveUntil: a.expirationLedger,
      };
    }
    return undefined;
  }
}

function isContract(address: string): boolean {
  return address.charCodeAt(0) === 67; // 'C'
}

function accountKey(g: string): xdr.PublicKeyWire {
  return { type: 0, ed25519: StrKey.decodeEd25519PublicKey(g) };
}

export function balanceKey(who: string): ScVal {
  return scv.vec([scv.sym('Balance'), scv.address(who)]);
}

export function allowanceKey(from: string, spender: string): ScVal {
  return scv.vec([
    scv.sym('Allowance'),
    scv.struct({ from: { type: 18, address: toScAddress(from) }, spender: scv.address(spender) }),
  ]);
}

const TOKEN_ERRORS: Record<number, ConstructorParameters<typeof DltError>[0]> = {
  9: 'E_VENUE_INSUFFICIENT_ALLOWANCE',
  10: 'E_VENUE_INSUFFICIENT_BALANCE',
  11: 'E_VENUE_TOKEN_NOT_AUTHORIZED',
  13: 'E_VENUE_TRUSTLINE_MISSING',
};

/** The asset contract's own error codes; those without a venue meaning are reported as host-level contract codes. */
function fail(code: number, message: string): never {
  const known = TOKEN_ERRORS[code];
  if (known !== undefined)
    throw new DltError(known, `contract error #${code}: ${message}`, { details: { wasmCode: code } });
  throw new DltError('E_VENUE_CONTRACT_ERROR', `contract error #${code}: ${message}`, { details: { wasmCode: code } });
}
