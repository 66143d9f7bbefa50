/**
 * Deploying the venue's contracts into the emulator. Contract ids are derived the way the network derives
 * them: the registry and each order book from the operator's address and a salt naming the deployment, each
 * token as the asset contract of a classic asset whose issuer key is derived from the deployment name. So a
 * deployment name always yields the same addresses, and two deployments never collide. Addresses come in
 * both forms: the `C...` strkey and the hex of the 32-byte id (the TradingPair's ChainAddress).
 */
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { Decimal } from '../../core/decimal.ts';
import { pairScales, type TradingPair } from '../../core/pair.ts';
import { derivePairRules, type PairOverrides } from '../../core/rules.ts';
import { priceToRaw, quantityToRaw, quoteToNative } from '../../core/units.ts';
import type { BookParams, TickRow } from '../matching/types.ts';
import { OrderBookContract } from './contracts/order-book.ts';
import { PriceOracleContract, type Sep40Asset } from './contracts/price-oracle.ts';
import { RegistryContract } from './contracts/registry.ts';
import { TokenContract } from './contracts/token.ts';
import { sha256 } from './crypto.ts';
import type { WasmEmulator } from './emulator.ts';
import { toScAddress } from './scval.ts';

/** Native balance given to the accounts a deployment creates (issuers, operator), in stroops. */
const ACCOUNT_STROOPS = 100_000_000_000n;

export interface ContractAddress {
  /** C... strkey. */
  readonly strkey: string;
  /** Hex of the 32-byte contract id, as the TradingPair carries it. */
  readonly hex: string;
}

export function contractAddress(strkey: string): ContractAddress {
  return { strkey, hex: Buffer.from(StrKey.decodeContract(strkey)).toString('hex') };
}

/** The network's contract id for a contract created by `deployer` with `salt`. */
export function deriveContractId(networkId: Uint8Array, deployer: string, salt: string): string {
  const preimage: xdr.HashIdPreimageWire = {
    type: 8,
    contractId: {
      networkId,
      contractIdPreimage: { type: 0, fromAddress: { address: toScAddress(deployer), salt: sha256(Buffer.from(salt)) } },
    },
  };
  return StrKey.encodeContract(sha256(xdr.HashIdPreimage.schema.encode(preimage)));
}

export function wasmHashOf(kind: string): Uint8Array {
  return sha256(Buffer.from(`dlt-mm ${kind}`));
}

export interface Venue {
  readonly operator: Keypair;
  readonly registry: RegistryContract;
}

/** Creates the operator account and the venue-wide client registry. */
export function deployVenue(emu: WasmEmulator, operator: Keypair, name = 'venue'): Venue {
  emu.fundAccount(operator.publicKey(), ACCOUNT_STROOPS);
  const registry = new RegistryContract(
    deriveContractId(emu.world.networkId, operator.publicKey(), `${name}:registry`),
    operator.publicKey(),
    wasmHashOf('client registry'),
  );
  emu.addContract(registry);
  return { operator, registry };
}

export interface TokenSpec {
  readonly code: string;
  /** Decimal places of the native scale (7 for a classic asset). */
  readonly decimals: number;
  readonly authRequired?: boolean;
}

export interface BookDeployment {
  readonly name: string;
  readonly book: OrderBookContract;
  readonly base: TokenContract;
  readonly quote: TokenContract;
  readonly baseIssuer: Keypair;
  readonly quoteIssuer: Keypair;
  readonly commissionWallet: string;
  readonly addresses: {
    readonly orderBook: ContractAddress;
    readonly base: ContractAddress;
    readonly quote: ContractAddress;
    readonly registry: ContractAddress;
  };
}

export interface RawBookSpec {
  /** Deployment name; the salt of every derived address. */
  readonly name: string;
  readonly params: BookParams;
  readonly base: TokenSpec;
  readonly quote: TokenSpec;
  /** Defaults to an account derived from the name. */
  readonly commissionWallet?: string;
  readonly liquidityBand?: number;
  readonly version?: string;
}

function issuerFor(name: string, code: string): Keypair {
  return Keypair.fromRawEd25519Seed(sha256(Buffer.from(`${name}:issuer:${code}`)));
}

/** Deploys a book from raw parameters (the fixtures' form). */
export function deployBook(emu: WasmEmulator, venue: Venue, spec: RawBookSpec): BookDeployment {
  const baseIssuer = issuerFor(spec.name, spec.base.code);
  const quoteIssuer = issuerFor(spec.name, spec.quote.code);
  for (const k of [baseIssuer, quoteIssuer]) emu.fundAccount(k.publicKey(), ACCOUNT_STROOPS);
  const base = new TokenContract(
    {
      code: spec.base.code,
      issuer: baseIssuer.publicKey(),
      decimals: spec.base.decimals,
      authRequired: spec.base.authRequired ?? false,
    },
    emu.passphrase,
  );
  const quote = new TokenContract(
    {
      code: spec.quote.code,
      issuer: quoteIssuer.publicKey(),
      decimals: spec.quote.decimals,
      authRequired: spec.quote.authRequired ?? false,
    },
    emu.passphrase,
  );
  const commissionWallet =
    spec.commissionWallet ?? Keypair.fromRawEd25519Seed(sha256(Buffer.from(`${spec.name}:commission`))).publicKey();
  emu.fundAccount(commissionWallet, ACCOUNT_STROOPS);
  const address = deriveContractId(emu.world.networkId, venue.operator.publicKey(), `${spec.name}:order-book`);
  const version = spec.version ?? '2.1.0';
  const book = new OrderBookContract({
    address,
    admin: venue.operator.publicKey(),
    commissionWallet,
    base,
    quote,
    registry: venue.registry,
    params: spec.params,
    liquidityBand: spec.liquidityBand ?? 0,
    version,
    wasmHash: wasmHashOf(`order book ${version}`),
  });
  for (const c of [base, quote, book]) emu.addContract(c);
  // The commission wallet must be able to receive the quote token.
  quote.holdings.set(commissionWallet, { amount: 0n, authorized: true, lastModified: emu.latest.seq });
  return {
    name: spec.name,
    book,
    base,
    quote,
    baseIssuer,
    quoteIssuer,
    commissionWallet,
    addresses: {
      orderBook: contractAddress(address),
      base: contractAddress(base.address),
      quote: contractAddress(quote.address),
      registry: contractAddress(venue.registry.address),
    },
  };
}

function decimalsOf(scale: bigint): number {
  const digits = scale.toString();
  return /^10*$/.test(digits) ? digits.length - 1 : 0;
}

export interface PairSpec {
  readonly pair: TradingPair;
  readonly overrides?: PairOverrides;
  readonly prefunded: boolean;
  readonly name?: string;
  readonly commissionWallet?: string;
  readonly authRequired?: boolean;
}

/** Raw book parameters of a TradingPair, with the same rule derivation the bot uses. */
export function bookParamsOf(pair: TradingPair, overrides: PairOverrides, prefunded: boolean): BookParams {
  const rules = derivePairRules(pair, overrides);
  const scales = pairScales(pair);
  const tickTable: TickRow[] =
    rules.tick.kind === 'fixed'
      ? [{ from: 0n, tick: priceToRaw(rules.tick.tick, scales) }]
      : rules.tick.rows.map((r) => ({ from: priceToRaw(r.from, scales), tick: priceToRaw(r.tick, scales) }));
  return {
    self: '',
    commissionWallet: '',
    scales,
    makerBps: rules.commissions.makerBps,
    takerBps: rules.commissions.takerBps,
    marketMakerBps: rules.commissions.marketMakerBps,
    maximumMatches: rules.maximumMatches,
    minimumSize: quantityToRaw(rules.minimumSize, scales),
    sizeIncrement: quantityToRaw(rules.sizeIncrement, scales),
    tickTable,
    priceCollarBps: Number(rules.priceCollarBps),
    staticReferencePrice: priceToRaw(rules.staticReferencePrice ?? new Decimal(0), scales),
    staticThresholdBps: rules.staticThresholdBps,
    dynamicThresholdBps: rules.dynamicThresholdBps,
    minimumOrderValue: quoteToNative(rules.minimumOrderValue, scales),
    maximumOrderValue: quoteToNative(rules.maximumOrderValue, scales),
    prefunded,
  };
}

/** Deploys a book for a TradingPair-like definition. */
export function deployPair(emu: WasmEmulator, venue: Venue, spec: PairSpec): BookDeployment {
  const { pair } = spec;
  const scales = pairScales(pair);
  return deployBook(emu, venue, {
    name: spec.name ?? pair.id,
    params: bookParamsOf(pair, spec.overrides ?? {}, spec.prefunded),
    base: {
      code: (pair.baseTokenData?.symbol ?? 'BASE').slice(0, 12),
      decimals: decimalsOf(scales.baseNative),
      authRequired: spec.authRequired ?? false,
    },
    quote: {
      code: pair.quoteTokenSymbol.slice(0, 12),
      decimals: decimalsOf(scales.quoteNative),
      authRequired: spec.authRequired ?? false,
    },
    commissionWallet: spec.commissionWallet,
    liquidityBand: pair.liquidityBand ?? 0,
    version: pair.orderBookVersion ?? '2.1.0',
  });
}

export interface PriceOracleSpec {
  /** Deployment name; the salt of the contract's address. */
  readonly name: string;
  readonly base: Sep40Asset;
  readonly assets: readonly Sep40Asset[];
  readonly decimals: number;
  readonly resolutionSeconds: number;
}

/** Deploys a SEP-40 price oracle whose admin (the only account that may `set_price`) is `admin`. */
export function deployPriceOracle(emu: WasmEmulator, admin: Keypair, spec: PriceOracleSpec): PriceOracleContract {
  if (!emu.world.accounts.has(admin.publicKey())) emu.fundAccount(admin.publicKey(), ACCOUNT_STROOPS);
  const oracle = new PriceOracleContract({
    address: deriveContractId(emu.world.networkId, admin.publicKey(), `${spec.name}:price-oracle`),
    admin: admin.publicKey(),
    base: spec.base,
    assets: spec.assets,
    decimals: spec.decimals,
    resolutionSeconds: spec.resolutionSeconds,
    wasmHash: wasmHashOf('sep-40 price oracle'),
  });
  emu.addContract(oracle);
  return oracle;
}
