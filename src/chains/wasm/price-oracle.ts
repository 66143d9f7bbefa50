/**
 * Reading a SEP-40 price oracle (Reflector's interface) through simulation: `decimals()` and
 * `lastprice(asset)`, with `Asset` encoded as Soroban encodes the `#[contracttype] enum Stellar(Address) |
 * Other(Symbol)` (a vector: the variant's name, then its value) and `PriceData { price: i128, timestamp: u64 }`
 * read as the struct it is (a map with symbol keys). `None` (void) is no price; an answer of any other shape
 * is an `E_CHAIN_RPC` error of kind `malformed`, never a wrong number.
 */
import { Address, xdr } from '@stellar/stellar-sdk';
import { DltError } from '../../core/errors.ts';
import { createMetrics } from '../../telemetry/metrics.ts';
import { silentLogger, type Logger } from '../../telemetry/logger.ts';
import { httpTransport } from './json-rpc.ts';
import { createWasmMetrics } from './metrics.ts';
import { WasmReader } from './reads.ts';
import { WasmRpc } from './rpc-client.ts';
import { fields, integer, Malformed, small, type ScVal } from './scval.ts';

export type Sep40Asset = { readonly stellar: string } | { readonly other: string };

export interface Sep40Price {
  /** Scaled by 10^decimals. */
  readonly price: bigint;
  readonly timestampSeconds: bigint;
  readonly decimals: number;
}

/** The stellar-sdk's account for simulations without a source of their own (it need not exist). */
export const NULL_ACCOUNT = 'GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF';
const SYMBOL = /^[A-Za-z0-9_]{1,32}$/;

/** The `Asset` argument of a SEP-40 call. */
export function sep40AssetScVal(asset: Sep40Asset): xdr.ScVal {
  if ('stellar' in asset) {
    let address: Address;
    try {
      address = Address.fromString(asset.stellar);
    } catch (e) {
      throw new DltError('E_CONFIG_INVALID', `oracle asset ${asset.stellar} is not a Stellar address`, { cause: e });
    }
    return xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Stellar'), address.toScVal()]);
  }
  if (!SYMBOL.test(asset.other))
    throw new DltError(
      'E_CONFIG_INVALID',
      `oracle asset "${asset.other}" is not a Soroban symbol (1-32 of A-Z a-z 0-9 _)`,
    );
  return xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Other'), xdr.ScVal.scvSymbol(asset.other)]);
}

function malformed(oracle: string, fn: string, message: string, cause?: unknown): DltError {
  return new DltError('E_CHAIN_RPC', `${fn} of price oracle ${oracle}: ${message}`, {
    details: { method: 'simulateTransaction', kind: 'malformed', contract: oracle, fn },
    cause,
  });
}

/** `PriceData` of an answer; null for `None`. */
export function priceDataOf(v: ScVal, oracle: string): { price: bigint; timestampSeconds: bigint } | null {
  if (v.type === 1) return null;
  try {
    const f = fields(v, 'PriceData');
    const price = f.get('price');
    if (price?.type !== 10) throw new Malformed(`price: expected an i128, got ScVal type ${price?.type ?? 'none'}`);
    const timestamp = f.get('timestamp');
    if (timestamp?.type !== 5)
      throw new Malformed(`timestamp: expected a u64, got ScVal type ${timestamp?.type ?? 'none'}`);
    return { price: integer(price, 'price'), timestampSeconds: integer(timestamp, 'timestamp') };
  } catch (e) {
    if (e instanceof Malformed) throw malformed(oracle, 'lastprice', `not a PriceData: ${e.message}`, e);
    throw e;
  }
}

/** `decimals()` and `lastprice(asset)`; null when the oracle has no price for the asset. */
export async function readSep40(
  reader: Pick<WasmReader, 'view'>,
  oracle: string,
  asset: Sep40Asset,
): Promise<Sep40Price | null> {
  const arg = sep40AssetScVal(asset);
  const [decimalsVal, last] = await Promise.all([
    reader.view(oracle, 'decimals'),
    reader.view(oracle, 'lastprice', [arg]),
  ]);
  let decimals: number;
  try {
    if (decimalsVal.type !== 3) throw new Malformed(`expected a u32, got ScVal type ${decimalsVal.type}`);
    decimals = small(decimalsVal, 'decimals');
  } catch (e) {
    if (e instanceof Malformed) throw malformed(oracle, 'decimals', e.message, e);
    throw e;
  }
  const data = priceDataOf(last, oracle);
  return data === null ? null : { ...data, decimals };
}

/** A standalone reader of chain B price oracles over one node's RPC URL. */
export class Sep40Reader {
  readonly #reader: WasmReader;

  constructor(
    rpcUrl: string,
    networkPassphrase: string,
    options: { readonly timeoutMs?: number; readonly source?: string; readonly logger?: Logger } = {},
  ) {
    const rpc = new WasmRpc(
      httpTransport(rpcUrl, { timeoutMs: options.timeoutMs ?? 10_000 }),
      createWasmMetrics(createMetrics()),
    );
    this.#reader = new WasmReader(
      rpc,
      options.source ?? NULL_ACCOUNT,
      networkPassphrase,
      options.logger ?? silentLogger(),
    );
  }

  read(oracle: string, asset: Sep40Asset): Promise<Sep40Price | null> {
    return readSep40(this.#reader, oracle, asset);
  }
}
