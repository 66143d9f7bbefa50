/**
 * `dlt-mm channels create`: creates and funds chain B channel accounts (transaction sources that let several
 * of the trading account's transactions go out in one ledger). With `--config`, for the configuration's chain
 * B wallets (channels-config.ts); otherwise from a funding account named on the command line, the new secret
 * seeds written to one file readable only by its owner, one per line. Seeds are never printed; public keys are.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Keypair } from '@stellar/stellar-sdk';
import { createChannelAccounts } from '../../chains/wasm/channel-setup.ts';
import { DltError } from '../../core/errors.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { usageArgs } from '../args.ts';
import { createChannelsFromConfig } from './channels-config.ts';

export const CHANNELS_USAGE = `Usage:
  dlt-mm channels create --config <file> --count <n> [--wallet <id>] [--dir <dir>] [--balance <XLM, default 5>]
      n channel accounts for each chain B wallet of the configuration (or --wallet), funded by the wallet; each
      seed goes to a file of its own (mode 0600) in --dir (default channels/ beside the configuration), and
      the {file: ...} references to add under wallets[].channelAccounts are printed
  dlt-mm channels create --rpc-url <url> --passphrase <network passphrase> --funder-env <VAR> --count <n>
                         --out <file> [--balance <XLM per account, default 5>]
      the funding account's secret seed is read from the environment variable named by --funder-env;
      the new seeds go to --out (mode 0600), one per line, for use as {file: ...} or {env: ...} secrets`;

const DEFAULT_BALANCE = '5';

export async function channelsCommand(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  if (verb !== 'create') throw new DltError('E_USAGE', CHANNELS_USAGE);
  const { values: v } = usageArgs(
    () =>
      parseArgs({
        args: rest,
        options: {
          config: { type: 'string' },
          wallet: { type: 'string' },
          dir: { type: 'string' },
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
  if (v.balance !== undefined && !/^[0-9]+(\.[0-9]{1,7})?$/.test(v.balance))
    throw new DltError('E_USAGE', `--balance must be an XLM amount\n${CHANNELS_USAGE}`);
  const balance = v.balance ?? DEFAULT_BALANCE;
  if (v.config !== undefined) {
    const direct = (['rpc-url', 'passphrase', 'funder-env', 'out'] as const).filter((k) => v[k] !== undefined);
    if (direct.length > 0)
      throw new DltError(
        'E_USAGE',
        `--config takes the chain and the funding wallet from the configuration: drop ${direct.map((m) => `--${m}`).join(', ')}\n${CHANNELS_USAGE}`,
      );
    const count = Number(v.count);
    if (v.count === undefined || !Number.isInteger(count) || count < 1 || count > 1000)
      throw new DltError('E_USAGE', `--count must be 1..1000\n${CHANNELS_USAGE}`);
    return createChannelsFromConfig({ config: v.config, count, wallet: v.wallet, dir: v.dir, balance }, io);
  }
  if (v.wallet !== undefined || v.dir !== undefined)
    throw new DltError('E_USAGE', `--wallet and --dir go with --config\n${CHANNELS_USAGE}`);
  const missing = (['rpc-url', 'passphrase', 'funder-env', 'count', 'out'] as const).filter((k) => v[k] === undefined);
  if (missing.length > 0)
    throw new DltError('E_USAGE', `missing ${missing.map((m) => `--${m}`).join(', ')}\n${CHANNELS_USAGE}`);
  const count = Number(v.count);
  if (!Number.isInteger(count) || count < 1 || count > 100)
    throw new DltError('E_USAGE', `--count must be 1..100\n${CHANNELS_USAGE}`);
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
    startingBalance: balance,
  });
  const out = resolve(io.cwd, v.out as string);
  writeFileSync(out, `${created.accounts.map((k) => k.secret()).join('\n')}\n`, { mode: 0o600 });
  io.stdout(`created ${created.accounts.length} channel account(s); seeds written to ${out} (mode 0600)\n`);
  for (const k of created.accounts) io.stdout(`  ${k.publicKey()}\n`);
  return EXIT_OK;
}
