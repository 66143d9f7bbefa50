/**
 * `dlt-mm channels create`: creates and funds chain B channel accounts (transaction sources that let several
 * of the trading account's transactions go out in one ledger). The new secret seeds are written to a file
 * readable only by its owner, one per line, and never printed; the public keys are printed.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Keypair } from '@stellar/stellar-sdk';
import { createChannelAccounts } from '../../chains/wasm/channel-setup.ts';
import { DltError } from '../../core/errors.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { usageArgs } from '../args.ts';

export const CHANNELS_USAGE = `Usage:
  dlt-mm channels create --rpc-url <url> --passphrase <network passphrase> --funder-env <VAR> --count <n>
                         --out <file> [--balance <XLM per account, default 5>]
      the funding account's secret seed is read from the environment variable named by --funder-env;
      the new seeds go to --out (mode 0600), one per line, for use as {file: ...} or {env: ...} secrets`;

export async function channelsCommand(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  if (verb !== 'create') throw new DltError('E_USAGE', CHANNELS_USAGE);
  const { values: v } = usageArgs(
    () =>
      parseArgs({
        args: rest,
        options: {
          'rpc-url': { type: 'string' },
          passphrase: { type: 'string' },
          'funder-env': { type: 'string' },
          count: { type: 'string' },
          out: { type: 'string' },
          balance: { type: 'string' },
        },
        strict: true,
        allowPositionals: false,
      }),
    CHANNELS_USAGE,
  );
  const missing = (['rpc-url', 'passphrase', 'funder-env', 'count', 'out'] as const).filter((k) => v[k] === undefined);
  if (missing.length > 0)
    throw new DltError('E_USAGE', `missing ${missing.map((m) => `--${m}`).join(', ')}\n${CHANNELS_USAGE}`);
  const count = Number(v.count);
  if (!Number.isInteger(count) || count < 1 || count > 100)
    throw new DltError('E_USAGE', `--count must be 1..100\n${CHANNELS_USAGE}`);
  if (v.balance !== undefined && !/^[0-9]+(\.[0-9]{1,7})?$/.test(v.balance))
    throw new DltError('E_USAGE', `--balance must be an XLM amount\n${CHANNELS_USAGE}`);
  const seed = io.env[v['funder-env'] as string];
  if (seed === undefined || seed.trim() === '') {
    throw new DltError(
      'E_CONFIG_SECRET',
      `environment variable ${v['funder-env']} with the funding account's seed is not set`,
    );
  }
  let funder: Keypair;
  try {
    funder = Keypair.fromSecret(seed.trim());
  } catch (cause) {
    throw new DltError('E_CONFIG_SECRET', `environment variable ${v['funder-env']} does not hold a secret seed`, {
      cause,
    });
  }
  const created = await createChannelAccounts({
    rpcUrl: v['rpc-url'] as string,
    networkPassphrase: v.passphrase as string,
    funder,
    count,
    ...(v.balance === undefined ? {} : { startingBalance: v.balance }),
  });
  const out = resolve(io.cwd, v.out as string);
  writeFileSync(out, `${created.accounts.map((k) => k.secret()).join('\n')}\n`, { mode: 0o600 });
  io.stdout(`created ${created.accounts.length} channel account(s); seeds written to ${out} (mode 0600)\n`);
  for (const k of created.accounts) io.stdout(`  ${k.publicKey()}\n`);
  return EXIT_OK;
}
