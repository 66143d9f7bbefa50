/**
 * How a failed call is reported: the host's `ScError`. Contract failures are the DltErrors the contracts and
 * the matching engine throw, mapped to the chain B code with `contractErrorForCode`; host failures
 * (authorization, argument types) are `E_VENUE_HOST_ERROR` carrying the ScError they stand for.
 */
import type { xdr } from '@stellar/stellar-sdk';
import { describeScError, SC_ERROR_CODES, SC_ERROR_TYPES } from '../../core/encoding/sc-error.ts';
import { DltError, isDltError } from '../../core/errors.ts';
import { contractErrorForCode } from '../../core/venue-errors.ts';

export type ScErrorWire = xdr.ScErrorWire;

/** A host failure's type and code, as the host's names with a lower-case first letter (`auth`, `invalidAction`). */
export type HostErrorType = Uncapitalize<Exclude<(typeof SC_ERROR_TYPES)[number], 'Contract'>>;
export type HostErrorCode = Uncapitalize<(typeof SC_ERROR_CODES)[number]>;

const indexOf = (names: readonly string[], name: string): number =>
  names.findIndex((n) => n.toLowerCase() === name.toLowerCase());

export function hostFail(type: HostErrorType, code: HostErrorCode, message: string): DltError {
  const scError = { type: indexOf(SC_ERROR_TYPES, type), code: indexOf(SC_ERROR_CODES, code) } as ScErrorWire;
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
  return { type: 2, code: indexOf(SC_ERROR_CODES, 'internalError') } as ScErrorWire;
}
