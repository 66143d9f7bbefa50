/** Command-line parsing: every command reads its arguments through here, so a malformed line is one kind of error. */
import { parseArgs } from 'node:util';
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

/** `--config <file> [--pair <id>] [--json]`, the options of the read-only commands; `--config` is required. */
export function configPairJsonArgs(
  args: string[],
  usage: string,
): { readonly config: string; readonly pair: string | undefined; readonly json: boolean } {
  const { values } = usageArgs(
    () =>
      parseArgs({
        args,
        options: { config: { type: 'string' }, pair: { type: 'string' }, json: { type: 'boolean' } },
        strict: true,
      }),
    usage,
  );
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${usage}`);
  return { config: values.config, pair: values.pair, json: values.json === true };
}
