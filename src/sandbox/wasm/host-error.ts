/**
 * How a failed call is reported: the host's `ScError`. Contract failures are the DltErrors the contracts and
 * the matching engine throw, mapped to the chain B code with `contractErrorForCode`; host failures
 * (authorization, argument types) are `E_VENUE_HOST_ERROR` carrying the ScError they stand for.
 */
import type { xdr } from '@stellar/stellar-sdk';
import { DltError, isDltError } from '../../core/errors.ts';
import { contractErrorForCode } from '../../core/venue-errors.ts';

export type ScErrorWire = xdr.ScErrorWire;

const TYPES = [
  'contract',
  'wasmVm',
  'context',
  'storage',
  'object',
  'crypto',
  'events',
  'budget',
  'value',
  'auth',
] as const;
const TYPE_NAMES = [
  'Contract',
  'WasmVm',
  'Context',
  'Storage',
  'Object',
  'Crypto',
  'Events',
  'Budget',
  'Value',
  'Auth',
];
const CODES = [
  'arithDomain',
  'indexBounds',
  'invalidInput',
  'missingValue',
  'existingValue',
  'exceededLimit',
  'invalidAction',
  'internalError',
  'unexpectedType',
  'unexpectedSize',
] as const;
const CODE_NAMES = CODES.map((c) => c[0]!.toUpperCase() + c.slice(1));

export type HostErrorType = Exclude<(typeof TYPES)[number], 'contract'>;
export type HostErrorCode = (typeof CODES)[number];

export function hostFail(type: HostErrorType, code: HostErrorCode, message: string): DltError {
  const scError = { type: TYPES.indexOf(type), code: CODES.indexOf(code) } as ScErrorWire;
  return new DltError('E_VENUE_HOST_ERROR', `${describeScError(scError)}: ${message}`, { details: { scError } });
}

/** The ScError a thrown value is reported as; anything unexpected is the host's internal error. */
export function scErrorOf(e: unknown): ScErrorWire {
  if (isDltError(e)) {
    if (e.code === 'E_VENUE_HOST_ERROR') return e.details.scError as ScErrorWire;
    if (typeof e.details.wasmCode === 'number') return { type: 0, contractCode: e.details.wasmCode };
    const def = contractErrorForCode(e.code);
    if (def !== undefined) return { type: 0, contractCode: def.wasmCode };
  }
  return { type: 2, code: CODES.indexOf('internalError') } as ScErrorWire;
}

/** `Error(Contract, #4)`, `Error(Auth, InvalidAction)`: the host's own rendering, which clients parse. */
export function describeScError(s: ScErrorWire): string {
  if (s.type === 0) return `Error(Contract, #${s.contractCode})`;
  return `Error(${TYPE_NAMES[s.type]}, ${CODE_NAMES[s.code]})`;
}
