/**
 * A contract's entry points as a table: each decodes its arguments, calls the contract and encodes the result.
 * `dispatch` is the contract's `call`; a name the table does not hold fails as the host does for a function
 * the contract does not export.
 */
import { hostFail } from '../host-error.ts';
import type { Env, Frame } from '../host.ts';
import type { ScVal } from '../scval.ts';

/** One call of an entry point: the contract it runs on, the host environment and frame, the function and its arguments. */
export interface EntryCall<C> {
  readonly contract: C;
  readonly env: Env;
  readonly frame: Frame;
  readonly fn: string;
  readonly args: readonly ScVal[];
}

export type EntryPoint<C> = (call: EntryCall<C>) => ScVal;

export type EntryPoints<C> = Readonly<Record<string, EntryPoint<C>>>;

/** Runs the entry point `call.fn` of `table`; `kind` names the contract in the failure (`token has no function x`). */
export function dispatch<C>(table: EntryPoints<C>, kind: string, call: EntryCall<C>): ScVal {
  const entry = Object.hasOwn(table, call.fn) ? table[call.fn] : undefined;
  if (entry === undefined) throw hostFail('value', 'missingValue', `${kind} has no function ${call.fn}`);
  return entry(call);
}
