/**
 * Venue outcomes mapped to typed errors: chain A custom errors and revert strings, chain B contract error codes,
 * and the rejection reasons of `OrderRejected`. One table, used by the bot's adapters and the sandbox alike.
 */
import { DltError, type ErrorCode } from './errors.ts';

export interface ContractErrorDef {
  /** Name without the chain A `OrderBook_` prefix. */
  readonly name: string;
  /** Chain B contract error code (`#n`). */
  readonly wasmCode: number;
  readonly code: ErrorCode;
  /** True where the specification gives the code; false where the sandbox had to choose one. */
  readonly fromSpec: boolean;
}

export const CONTRACT_ERRORS: readonly ContractErrorDef[] = [
  { name: 'NotAllowedToBuy', wasmCode: 4, code: 'E_VENUE_NOT_ALLOWED_TO_BUY', fromSpec: true },
  { name: 'NotAllowedToSell', wasmCode: 5, code: 'E_VENUE_NOT_ALLOWED_TO_SELL', fromSpec: true },
  { name: 'ClientNotFound', wasmCode: 6, code: 'E_VENUE_CLIENT_NOT_FOUND', fromSpec: true },
  { name: 'NotAllowedToCancel', wasmCode: 7, code: 'E_VENUE_NOT_ALLOWED_TO_CANCEL', fromSpec: true },
  { name: 'OrderNotFound', wasmCode: 8, code: 'E_VENUE_ORDER_NOT_FOUND', fromSpec: true },
  { name: 'AllowanceError', wasmCode: 9, code: 'E_VENUE_INSUFFICIENT_ALLOWANCE', fromSpec: false },
  { name: 'BalanceNotInAllowedRange', wasmCode: 10, code: 'E_VENUE_INSUFFICIENT_BALANCE', fromSpec: true },
  { name: 'BalanceDeauthorized', wasmCode: 11, code: 'E_VENUE_TOKEN_NOT_AUTHORIZED', fromSpec: false },
  { name: 'TrustlineMissing', wasmCode: 13, code: 'E_VENUE_TRUSTLINE_MISSING', fromSpec: true },
  { name: 'InvalidInputOrderData', wasmCode: 2004, code: 'E_VENUE_INVALID_ORDER_DATA', fromSpec: true },
  { name: 'Unauthorized', wasmCode: 4001, code: 'E_VENUE_UNAUTHORIZED', fromSpec: true },
  { name: 'PreTradeControlPriceAboveMaxRange', wasmCode: 1018, code: 'E_VENUE_PRICE_ABOVE_MAX_RANGE', fromSpec: true },
  { name: 'PreTradeControlPriceBelowMinRange', wasmCode: 1019, code: 'E_VENUE_PRICE_BELOW_MIN_RANGE', fromSpec: true },
  {
    name: 'PreTradeControlOrderValueAboveMaxRange',
    wasmCode: 1020,
    code: 'E_VENUE_VALUE_ABOVE_MAX_RANGE',
    fromSpec: true,
  },
  {
    name: 'PreTradeControlOrderVolumeAboveMaxRange',
    wasmCode: 1021,
    code: 'E_VENUE_VOLUME_ABOVE_MAX_RANGE',
    fromSpec: true,
  },
  {
    name: 'PreTradeControlOrderValueBelowMinRange',
    wasmCode: 1022,
    code: 'E_VENUE_VALUE_BELOW_MIN_RANGE',
    fromSpec: true,
  },
  {
    name: 'PreTradeControlOrderVolumeBelowMinRange',
    wasmCode: 1023,
    code: 'E_VENUE_VOLUME_BELOW_MIN_RANGE',
    fromSpec: true,
  },
  { name: 'PreTradeControlPriceNotOnTick', wasmCode: 1024, code: 'E_VENUE_OFF_TICK', fromSpec: false },
  {
    name: 'VolatilityManagementPriceOutOfMaximumStaticRange',
    wasmCode: 1025,
    code: 'E_VENUE_VOLATILITY_MAX_STATIC',
    fromSpec: true,
  },
  {
    name: 'VolatilityManagementPriceOutOfMinimumStaticRange',
    wasmCode: 1026,
    code: 'E_VENUE_VOLATILITY_MIN_STATIC',
    fromSpec: true,
  },
  {
    name: 'VolatilityManagementPriceOutOfMaximumDynamicRange',
    wasmCode: 1027,
    code: 'E_VENUE_VOLATILITY_MAX_DYNAMIC',
    fromSpec: true,
  },
  {
    name: 'VolatilityManagementPriceOutOfMinimumDynamicRange',
    wasmCode: 1028,
    code: 'E_VENUE_VOLATILITY_MIN_DYNAMIC',
    fromSpec: true,
  },
  { name: 'OrderBookNotOpenForTrading', wasmCode: 1001, code: 'E_VENUE_MARKET_CLOSED', fromSpec: false },
];

/** Chain A errors that are not `OrderBook_`-prefixed custom errors of the order book. */
export const EVM_EXTERNAL_ERRORS: Readonly<Record<string, ErrorCode>> = {
  ERC20InsufficientAllowance: 'E_VENUE_INSUFFICIENT_ALLOWANCE',
  ERC20InsufficientBalance: 'E_VENUE_INSUFFICIENT_BALANCE',
  'Receiver must be a beneficiary': 'E_VENUE_NOT_BENEFICIARY',
};

export const EVM_ERROR_PREFIX = 'OrderBook_';

const BY_WASM_CODE = new Map(CONTRACT_ERRORS.map((d) => [d.wasmCode, d]));
const BY_NAME = new Map(CONTRACT_ERRORS.map((d) => [d.name, d]));

export function contractErrorByName(name: string): ContractErrorDef | undefined {
  return BY_NAME.get(name);
}

export function contractErrorByWasmCode(code: number): ContractErrorDef | undefined {
  return BY_WASM_CODE.get(code);
}

/** The contract error a typed error is reported as (first definition with that code). */
export function contractErrorForCode(code: ErrorCode): ContractErrorDef | undefined {
  return CONTRACT_ERRORS.find((d) => d.code === code);
}

/** A chain B contract error (`Error(Contract, #n)`) as a typed error. */
export function fromWasmContractCode(code: number, context: Record<string, unknown> = {}): DltError {
  const def = BY_WASM_CODE.get(code);
  if (!def)
    return new DltError('E_VENUE_CONTRACT_ERROR', `contract error #${code}`, {
      details: { ...context, wasmCode: code },
    });
  return new DltError(def.code, `contract error #${code} ${def.name}`, {
    details: { ...context, wasmCode: code, name: def.name },
  });
}

/**
 * A chain A revert as a typed error: a custom error name (`OrderBook_NotAllowedToBuy`, `ERC20InsufficientAllowance`)
 * or a revert string (`Receiver must be a beneficiary`), with its decoded arguments.
 */
export function fromEvmRevert(nameOrReason: string, args: Readonly<Record<string, unknown>> = {}): DltError {
  const external = EVM_EXTERNAL_ERRORS[nameOrReason];
  if (external)
    return new DltError(external, `${nameOrReason}${formatArgs(args)}`, { details: { name: nameOrReason, args } });
  const bare = nameOrReason.startsWith(EVM_ERROR_PREFIX) ? nameOrReason.slice(EVM_ERROR_PREFIX.length) : nameOrReason;
  const def = BY_NAME.get(bare);
  if (def)
    return new DltError(def.code, `${nameOrReason}${formatArgs(args)}`, { details: { name: nameOrReason, args } });
  return new DltError('E_VENUE_CONTRACT_ERROR', `revert ${nameOrReason}${formatArgs(args)}`, {
    details: { name: nameOrReason, args },
  });
}

function formatArgs(args: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(args);
  if (entries.length === 0) return '';
  return `(${entries.map(([k, v]) => `${k}=${typeof v === 'bigint' ? v.toString() : JSON.stringify(v)}`).join(', ')})`;
}

export const REJECTION_REASONS = [
  'None',
  'SelfTrade',
  'MaxMatches',
  'CircuitBreakerPriceOutOfMaximumStaticRange',
  'CircuitBreakerPriceOutOfMinimumStaticRange',
  'CircuitBreakerPriceOutOfMaximumDynamicRange',
  'CircuitBreakerPriceOutOfMinimumDynamicRange',
  'PartialRejected',
  'FullyRejected',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

const REJECTION_CODES: Readonly<Record<RejectionReason, ErrorCode | null>> = {
  None: null,
  SelfTrade: 'E_REJECTED_SELF_TRADE',
  MaxMatches: 'E_REJECTED_MAX_MATCHES',
  CircuitBreakerPriceOutOfMaximumStaticRange: 'E_REJECTED_CIRCUIT_BREAKER',
  CircuitBreakerPriceOutOfMinimumStaticRange: 'E_REJECTED_CIRCUIT_BREAKER',
  CircuitBreakerPriceOutOfMaximumDynamicRange: 'E_REJECTED_CIRCUIT_BREAKER',
  CircuitBreakerPriceOutOfMinimumDynamicRange: 'E_REJECTED_CIRCUIT_BREAKER',
  PartialRejected: 'E_REJECTED_PARTIAL',
  FullyRejected: 'E_REJECTED_FULL',
};

export function rejectionReasonName(reason: number): RejectionReason | undefined {
  return REJECTION_REASONS[reason];
}

/** An `OrderRejected` reason as a typed error; reason 0 (None) is no error. */
export function fromRejectionReason(reason: number, context: Record<string, unknown> = {}): DltError | null {
  const name = REJECTION_REASONS[reason];
  if (name === undefined)
    return new DltError('E_REJECTED_UNKNOWN', `rejected with unknown reason ${reason}`, {
      details: { ...context, reason },
    });
  const code = REJECTION_CODES[name];
  return code === null
    ? null
    : new DltError(code, `order rejected: ${name}`, { details: { ...context, reason, name } });
}
