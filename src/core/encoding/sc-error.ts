/**
 * Soroban's `ScError` as the host renders it (`Error(Contract, #4)`, `Error(Auth, InvalidAction)`): the text
 * simulations return and clients parse. The type and code numbers are the XDR enums' (`ScErrorType`,
 * `ScErrorCode`); the names are the host's spelling. Shared by the chain B adapter (reading failures) and the
 * sandbox's emulator (reporting them), so that both spell an error the same way.
 */

/** `ScErrorType` by number. */
export const SC_ERROR_TYPES = [
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
] as const;

/** `ScErrorCode` by number. */
export const SC_ERROR_CODES = [
  'ArithDomain',
  'IndexBounds',
  'InvalidInput',
  'MissingValue',
  'ExistingValue',
  'ExceededLimit',
  'InvalidAction',
  'InternalError',
  'UnexpectedType',
  'UnexpectedSize',
] as const;

/** The XDR union's shape: a contract error carries its contract code, any other type an `ScErrorCode`. */
export type ScErrorShape =
  { readonly type: 0; readonly contractCode: number } | { readonly type: number; readonly code: number };

/** The host's rendering; a number no enum names is shown as the number. */
export function describeScError(e: ScErrorShape): string {
  if ('contractCode' in e) return `Error(Contract, #${e.contractCode})`;
  return `Error(${SC_ERROR_TYPES[e.type] ?? e.type}, ${SC_ERROR_CODES[e.code] ?? e.code})`;
}
