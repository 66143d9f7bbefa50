/** Command-line parsing: every command reads its arguments through here, so a malformed line is one kind of error. */
import { DltError } from '../core/errors.ts';

/** Runs a command line parser; its complaint (unknown option, missing value) becomes a usage error. */
export function usageArgs<T>(parse: () => T, usage: string): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof TypeError) throw new DltError('E_USAGE', `${e.message}\n${usage}`);
    throw e;
  }
}
