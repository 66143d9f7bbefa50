/**
 * Chain A revert data as the core's typed errors: a custom error name with its decoded arguments, or the
 * revert string of `Error(string)`, mapped by `fromEvmRevert`. Data that matches nothing the specification
 * names is still an error (`E_VENUE_CONTRACT_ERROR`) that carries the selector and the raw data.
 */
import { DltError } from '../../core/errors.ts';
import { EVM_ERROR_PREFIX, EVM_EXTERNAL_ERRORS, fromEvmRevert } from '../../core/venue-errors.ts';
import { errorsInterface } from './abi.ts';

export interface DecodedRevert {
  /** Custom error name, or the revert string of `Error(string)`. */
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** The name and arguments of revert data, or null when the selector is unknown or the arguments do not decode. */
export function parseRevert(data: string): DecodedRevert | null {
  if (data.length < 10) return null;
  try {
    const parsed = errorsInterface.parseError(data);
    if (parsed === null) return null;
    if (parsed.name === 'Error') return { name: String(parsed.args[0]), args: {} };
    const args: Record<string, unknown> = {};
    parsed.fragment.inputs.forEach((input, i) => {
      const v = parsed.args[i] as unknown;
      args[input.name || String(i)] = typeof v === 'string' ? v.toLowerCase() : v;
    });
    return { name: parsed.name, args };
  } catch {
    return null;
  }
}

/** A revert as a typed error; `context` (method, pair, ids) goes into the details. */
export function revertError(data: string | null, context: Readonly<Record<string, unknown>> = {}): DltError {
  if (data === null || data === '0x') {
    const e = fromEvmRevert('(no revert data)');
    return withContext(e, { ...context, data });
  }
  const decoded = parseRevert(data);
  if (decoded === null) {
    const e = fromEvmRevert(`unknown error ${data.slice(0, 10)}`);
    return withContext(e, { ...context, data, selector: data.slice(0, 10) });
  }
  return withContext(fromEvmRevert(decoded.name, decoded.args), context);
}

function withContext(e: DltError, context: Readonly<Record<string, unknown>>): DltError {
  return new DltError(e.code, e.message, { details: { ...e.details, ...context } });
}

/**
 * The revert's name as a metric label: a name of the venue's error table or an ERC-20 error as it is; anything
 * else (free revert strings, unknown selectors) is `other`, so that the label stays bounded. Logs carry it all.
 */
export function revertLabel(e: DltError): string {
  const name = e.details.name;
  if (typeof name !== 'string') return 'other';
  if (name.startsWith(EVM_ERROR_PREFIX) || name.startsWith('ERC20') || name in EVM_EXTERNAL_ERRORS || name === 'Panic')
    return name;
  return name === '(no revert data)' ? 'no_data' : 'other';
}
