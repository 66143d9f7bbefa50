/** `dlt-mm config check <file>` and `dlt-mm config schema [--out <dir>]`. */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { botConfigSchema } from '../../core/config/bot-config.ts';
import { parseStrategyConfig } from '../../core/config/load.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { strategyConfigSchema } from '../../core/config/strategy-config.ts';
import { DltError } from '../../core/errors.ts';
import { EXIT_OK, type CliIo } from '../io.ts';

export const CONFIG_USAGE = `Usage:
  dlt-mm config check <config.yaml | strategy.yaml>   validate and print every problem
  dlt-mm config schema [--out <dir>]                  write the JSON Schemas (default config/schema)`;

export const SCHEMA_FILES = {
  'bot-config.schema.json': botConfigSchema,
  'strategy.schema.json': strategyConfigSchema,
} as const;

export function renderSchema(name: keyof typeof SCHEMA_FILES): string {
  const schema = z.toJSONSchema(SCHEMA_FILES[name], { target: 'draft-2020-12', io: 'input' });
  return `${JSON.stringify({ ...schema, $id: `https://dlt-mm.invalid/schema/${name}` }, null, 2)}\n`;
}

function readText(path: string, io: CliIo): string {
  try {
    return io.readFile(path);
  } catch (cause) {
    throw new DltError('E_CONFIG_READ', `${path}: cannot be read (${(cause as Error).message})`, {
      cause,
      details: { path },
    });
  }
}

/** A strategy file is recognised by its top-level `kind:` key. */
function isStrategyText(text: string): boolean {
  return /^kind\s*:/m.test(text);
}

export function configCommand(args: string[], io: CliIo): number {
  const [verb, ...rest] = args;
  if (verb === 'check') {
    const file = rest[0];
    if (file === undefined || rest.length !== 1)
      throw new DltError('E_USAGE', `config check takes one file\n${CONFIG_USAGE}`);
    const path = resolve(io.cwd, file);
    const text = readText(path, io);
    if (isStrategyText(text)) {
      const s = parseStrategyConfig(text, file);
      io.stdout(`${file}: valid ${s.kind} strategy\n`);
      return EXIT_OK;
    }
    // The same check every command makes before it opens anything: secrets, strategy files, a sandbox's manifest.
    const { config } = checkedSetup(file, io);
    io.stdout(`${file}: valid (${config.pairs.length} pair(s), ${config.wallets.length} wallet(s))\n`);
    return EXIT_OK;
  }
  if (verb === 'schema') {
    let out = join(io.cwd, 'config', 'schema');
    if (rest[0] === '--out' && rest[1] !== undefined) out = resolve(io.cwd, rest[1]);
    else if (rest.length > 0) throw new DltError('E_USAGE', CONFIG_USAGE);
    for (const name of Object.keys(SCHEMA_FILES) as Array<keyof typeof SCHEMA_FILES>) {
      io.writeFile(join(out, name), renderSchema(name));
      io.stdout(`wrote ${join(out, name)}\n`);
    }
    return EXIT_OK;
  }
  throw new DltError('E_USAGE', CONFIG_USAGE);
}
