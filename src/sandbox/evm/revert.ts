/**
 * Reverts of the sandbox's chain A contracts as typed errors: the revert data is decoded against the errors of
 * every venue contract (an order book call can fail inside a token), then mapped by the core's venue error
 * table. Used by the sandbox's own tools and tests; the bot has its own decoder in its chain adapter.
 */
import { AbiCoder, Interface, dataSlice, isHexString } from 'ethers';
import { DltError } from '../../core/errors.ts';
import { fromEvmRevert } from '../../core/venue-errors.ts';
import { CONTRACT_NAMES, loadArtifacts } from './compile.ts';

const ERROR_STRING = '0x08c379a0';

let venueErrors: Interface | undefined;

/** One interface holding the custom errors of every venue contract. */
function errorsInterface(): Interface {
  if (venueErrors) return venueErrors;
  const seen = new Set<string>();
  const fragments: Record<string, unknown>[] = [];
  for (const name of CONTRACT_NAMES) {
    for (const f of loadArtifacts().contracts[name].abi) {
      const key = `${String(f.name)}(${JSON.stringify(f.inputs)})`;
      if (f.type === 'error' && !seen.has(key)) {
        seen.add(key);
        fragments.push(f);
      }
    }
  }
  venueErrors = new Interface(fragments as never);
  return venueErrors;
}

/** The revert data carried by an ethers error (or its nested causes), if any. */
export function revertData(error: unknown): string | undefined {
  let e = error as Record<string, unknown> | undefined;
  for (let depth = 0; e && depth < 6; depth++) {
    if (typeof e.data === 'string' && isHexString(e.data) && e.data.length >= 10) return e.data;
    e = (e.error ?? (e.info as Record<string, unknown> | undefined)?.error ?? e.cause) as
      Record<string, unknown> | undefined;
  }
  return undefined;
}

export interface DecodedRevert {
  /** Custom error name, or the revert string of `Error(string)`. */
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export function decodeRevertData(data: string): DecodedRevert | undefined {
  if (data.startsWith(ERROR_STRING)) {
    const [reason] = AbiCoder.defaultAbiCoder().decode(['string'], dataSlice(data, 4)) as unknown as [string];
    return { name: reason, args: {} };
  }
  const parsed = errorsInterface().parseError(data);
  if (!parsed) return undefined;
  const args: Record<string, unknown> = {};
  parsed.fragment.inputs.forEach((input, i) => {
    args[input.name || String(i)] = parsed.args[i];
  });
  return { name: parsed.name, args };
}

/** A failed call or transaction as the typed error the bot would see; anything unrecognised is rethrown. */
export function revertToError(error: unknown): DltError {
  const data = revertData(error);
  const decoded = data === undefined ? undefined : decodeRevertData(data);
  if (!decoded) {
    if (error instanceof DltError) return error;
    throw error;
  }
  return fromEvmRevert(decoded.name, decoded.args);
}
