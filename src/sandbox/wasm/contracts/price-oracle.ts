/**
 * A SEP-40 price oracle, the interface Reflector publishes: `base`, `assets`, `decimals`, `resolution`,
 * `price(asset, timestamp)`, `prices(asset, records)`, `lastprice(asset)`, plus `admin` and the admin's
 * `set_price(updates: Vec<PriceUpdate { asset: Asset, price: i128 }>, timestamp: u64)`, which only the admin
 * may call (`require_auth` of the stored admin, as Reflector: anyone else fails the host's auth check).
 * `Asset` is the enum `Stellar(Address) | Other(Symbol)`, encoded as Soroban encodes a `#[contracttype] enum`
 * (a vector: the variant's name, then its value); `PriceData { price: i128, timestamp: u64 }` and
 * `PriceUpdate` as a `#[contracttype] struct` (a map with sorted symbol keys); `Option::None` is void.
 *
 * Storage follows Reflector: prices are kept per resolution tick, timestamps in seconds, and a tick holds one
 * price per asset. `set_price` takes a tick-aligned timestamp no later than the ledger's close time; where
 * Reflector refuses a second update in the same tick, here it replaces that tick's record (a fault's
 * correction must not wait for the next tick), and an earlier tick than the asset's last is refused. Unlike
 * Reflector, which publishes every asset at every tick, the sandbox's operator publishes on deviation and
 * heartbeat, so ticks without an update are normal: `lastprice` answers the asset's newest record however old
 * (the consumer judges its age from `timestamp`; Reflector answers None two ticks after its last round),
 * `price` the record of exactly the tick that holds `timestamp` (None for a tick without one, as Reflector),
 * `prices` the asset's newest `records` records, newest first (at most 20, as Reflector; more is None).
 * Error codes are Reflector's: AssetMissing #2, InvalidTimestamp #5, InvalidPricesUpdate #8 (also for a price
 * that is not positive or an asset named twice in one update).
 */
import type { xdr } from '@stellar/stellar-sdk';
import { DltError } from '../../../core/errors.ts';
import { hostFail } from '../host-error.ts';
import { emit, requireAuth, touchData, type ContractImpl, type DataEntry, type Env, type Frame } from '../host.ts';
import { arity, read, scv, type ScVal } from '../scval.ts';

export type Sep40Asset = { readonly stellar: string } | { readonly other: string };

export interface PriceRecord {
  readonly price: bigint;
  /** Seconds, on a resolution tick. */
  readonly timestamp: bigint;
}

export interface PriceOracleSetup {
  readonly address: string;
  readonly admin: string;
  readonly base: Sep40Asset;
  readonly assets: readonly Sep40Asset[];
  readonly decimals: number;
  /** Seconds per tick. */
  readonly resolutionSeconds: number;
  readonly wasmHash: Uint8Array;
  /** Records kept per asset; default 1000 (older ones are dropped). */
  readonly historyLimit?: number;
}

const PRICES_LIMIT = 20;
const SYMBOL = /^[A-Za-z0-9_]{1,32}$/;

function oracleError(code: number, name: string, message: string): DltError {
  return new DltError('E_VENUE_CONTRACT_ERROR', `${name}: ${message}`, { details: { wasmCode: code, name } });
}

export function assetScVal(a: Sep40Asset): ScVal {
  if ('stellar' in a) return scv.vec([scv.sym('Stellar'), scv.address(a.stellar)]);
  if (!SYMBOL.test(a.other)) throw hostFail('value', 'invalidInput', `"${a.other}" is not a Soroban symbol`);
  return scv.vec([scv.sym('Other'), scv.sym(a.other)]);
}

export function readAsset(v: ScVal | undefined, what: string): Sep40Asset {
  if (v?.type !== 16 || v.vec?.length !== 2)
    throw hostFail('value', 'unexpectedType', `${what}: expected an Asset (a variant and its value)`);
  const [tag, value] = v.vec;
  const variant = read.symbol(tag, `${what} variant`);
  if (variant === 'Stellar') return { stellar: read.address(value, `${what} address`) };
  if (variant === 'Other') return { other: read.symbol(value, `${what} symbol`) };
  throw hostFail('value', 'unexpectedType', `${what}: Asset has no variant ${variant}`);
}

export function assetKey(a: Sep40Asset): string {
  return 'stellar' in a ? `Stellar:${a.stellar}` : `Other:${a.other}`;
}

export function priceDataScVal(r: PriceRecord): ScVal {
  return scv.struct({ price: scv.i128(r.price), timestamp: scv.u64(r.timestamp) });
}

/** A `PriceUpdate { asset: Asset, price: i128 }` of `set_price`'s vector. */
export function priceUpdateScVal(asset: Sep40Asset, price: bigint): ScVal {
  return scv.struct({ asset: assetScVal(asset), price: scv.i128(price) });
}

function pricesKey(asset: Sep40Asset): ScVal {
  return scv.vec([scv.sym('Prices'), assetScVal(asset)]);
}

export class PriceOracleContract implements ContractImpl {
  readonly address: string;
  readonly setup: PriceOracleSetup;
  readonly executable: xdr.ContractExecutableWire;
  /** Per asset key, ascending by timestamp. */
  readonly records = new Map<string, readonly PriceRecord[]>();
  readonly #assets: ReadonlyMap<string, Sep40Asset>;

  constructor(setup: PriceOracleSetup) {
    if (!Number.isInteger(setup.resolutionSeconds) || setup.resolutionSeconds <= 0)
      throw new DltError('E_SANDBOX', `oracle resolution must be whole seconds > 0, got ${setup.resolutionSeconds}`, {
        details: { part: 'wasm-oracle' },
      });
    this.setup = setup;
    this.address = setup.address;
    this.executable = { type: 0, wasmHash: setup.wasmHash };
    this.#assets = new Map(setup.assets.map((a) => [assetKey(a), a]));
    for (const a of [setup.base, ...setup.assets]) assetScVal(a);
  }

  call(env: Env, frame: Frame, fn: string, args: readonly ScVal[]): ScVal {
    const s = this.setup;
    switch (fn) {
      case 'base':
        arity(args, 0, fn);
        return assetScVal(s.base);
      case 'assets':
        arity(args, 0, fn);
        return scv.vec(s.assets.map(assetScVal));
      case 'decimals':
        arity(args, 0, fn);
        return scv.u32(s.decimals);
      case 'resolution':
        arity(args, 0, fn);
        return scv.u32(s.resolutionSeconds);
      case 'admin':
        arity(args, 0, fn);
        return scv.address(s.admin);
      case 'lastprice': {
        arity(args, 1, fn);
        const last = this.#history(env, readAsset(args[0], 'asset')).at(-1);
        return last === undefined ? scv.void() : priceDataScVal(last);
      }
      case 'price': {
        arity(args, 2, fn);
        const tick = this.tickOf(read.u64(args[1], 'timestamp'));
        const found = this.#history(env, readAsset(args[0], 'asset')).find((r) => r.timestamp === tick);
        return found === undefined ? scv.void() : priceDataScVal(found);
      }
      case 'prices': {
        arity(args, 2, fn);
        const history = this.#history(env, readAsset(args[0], 'asset'));
        const n = read.u32(args[1], 'records');
        if (n > PRICES_LIMIT || history.length === 0 || n === 0) return scv.void();
        return scv.vec(history.slice(-n).toReversed().map(priceDataScVal));
      }
      case 'set_price':
        arity(args, 2, fn);
        requireAuth(env, frame, s.admin);
        this.setPrices(env, this.#updates(args[0]), read.u64(args[1], 'timestamp'));
        return scv.void();
      default:
        throw hostFail('value', 'missingValue', `price oracle has no function ${fn}`);
    }
  }

  /** The tick that holds `seconds`. */
  tickOf(seconds: bigint): bigint {
    const r = BigInt(this.setup.resolutionSeconds);
    return seconds - (seconds % r);
  }

  setPrices(env: Env, updates: readonly { asset: Sep40Asset; price: bigint }[], timestamp: bigint): void {
    if (timestamp <= 0n || this.tickOf(timestamp) !== timestamp || timestamp > env.closeTime)
      throw oracleError(5, 'InvalidTimestamp', `${timestamp} is not a tick at or before ${env.closeTime}`);
    if (updates.length === 0) throw oracleError(8, 'InvalidPricesUpdate', 'no prices');
    const seen = new Set<string>();
    for (const { asset, price } of updates) {
      const key = assetKey(asset);
      if (!this.#assets.has(key)) throw oracleError(2, 'AssetMissing', `${key} is not quoted`);
      if (price <= 0n || seen.has(key)) throw oracleError(8, 'InvalidPricesUpdate', `${key}: price ${price}`);
      seen.add(key);
      const history = this.records.get(key) ?? [];
      const last = history.at(-1);
      if (last !== undefined && last.timestamp > timestamp)
        throw oracleError(5, 'InvalidTimestamp', `${key} has a price at ${last.timestamp}, after ${timestamp}`);
      const kept = last?.timestamp === timestamp ? history.slice(0, -1) : history;
      const next = [...kept, { price, timestamp }].slice(-(this.setup.historyLimit ?? 1000));
      touchData(env, this.address, pricesKey(asset), 'persistent', true);
      env.journal.set(this.records, key, next);
      emit(
        env,
        this.address,
        [scv.sym('prices'), scv.sym('update'), assetScVal(asset)],
        priceDataScVal({ price, timestamp }),
      );
    }
  }

  #history(env: Env, asset: Sep40Asset): readonly PriceRecord[] {
    touchData(env, this.address, pricesKey(asset), 'persistent', false);
    return this.records.get(assetKey(asset)) ?? [];
  }

  #updates(v: ScVal | undefined): { asset: Sep40Asset; price: bigint }[] {
    if (v?.type !== 16 || v.vec === null) throw hostFail('value', 'unexpectedType', 'updates: expected a vector');
    return v.vec.map((u, i) => {
      if (u.type !== 17 || u.map === null)
        throw hostFail('value', 'unexpectedType', `updates[${i}]: expected a PriceUpdate`);
      const f = new Map(u.map.map((e) => [e.key.type === 15 ? e.key.sym.toString() : '', e.val]));
      return { asset: readAsset(f.get('asset'), `updates[${i}].asset`), price: read.i128(f.get('price'), 'price') };
    });
  }

  dataEntry(key: ScVal, durability: 'persistent' | 'temporary', ledgerSeq: number): DataEntry | undefined {
    if (durability !== 'persistent' || key.type !== 16 || key.vec?.length !== 2) return undefined;
    const [tag, assetVal] = key.vec;
    if (tag?.type !== 15 || tag.sym.toString() !== 'Prices') return undefined;
    let asset: Sep40Asset;
    try {
      asset = readAsset(assetVal, 'asset');
    } catch {
      return undefined;
    }
    const history = this.records.get(assetKey(asset));
    if (history === undefined) return undefined;
    return {
      val: scv.vec(history.toReversed().map(priceDataScVal)),
      lastModified: ledgerSeq,
      liveUntil: ledgerSeq + 3_110_400,
    };
  }
}
