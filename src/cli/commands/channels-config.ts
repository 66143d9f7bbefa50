/**
 * `dlt-mm channels create --config <file> --count <n>`: channel accounts for every chain B wallet of a bot
 * configuration (or the one `--wallet` names), created and funded by the wallet itself in one classic
 * transaction per hundred. Each new secret seed goes to a file of its own (mode 0600) in a directory beside the
 * configuration, written before anything reaches the chain, so a funded account's key is never lost; the
 * output names the public keys and the `{file: ...}` references to add under `wallets[].channelAccounts`,
 * never a seed. A batch the chain refused or let expire never applied: its files are removed again.
 */
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { createChannelAccounts } from '../../chains/wasm/channel-setup.ts';
import type { BotConfig } from '../../core/config/bot-config.ts';
import { readSecret } from '../../core/config/load.ts';
import { DltError, isDltError } from '../../core/errors.ts';
import { checkedSetup, type Setup } from '../bootstrap/setup.ts';
import { EXIT_OK, type CliIo } from '../io.ts';

export interface ChannelsFromConfig {
  readonly config: string;
  readonly count: number;
  readonly wallet: string | undefined;
  /** Where the seed files go, relative to the configuration's directory (default `channels`). */
  readonly dir: string | undefined;
  /** Starting balance of each account, XLM. */
  readonly balance: string;
}

/** Accounts per creation transaction: the network's limit of operations in one transaction. */
const BATCH = 100;

type Wallet = BotConfig['wallets'][number];

/** The chain B wallets to equip, with their place in the configuration. */
function walletsOf(setup: Setup, only: string | undefined): Array<{ wallet: Wallet; index: number }> {
  if (setup.embedded || setup.config.sandbox?.manifest !== undefined) {
    throw new DltError(
      'E_USAGE',
      "the sandbox's market maker takes its channel accounts from the sandbox: set wasm.channelAccounts in its settings, --channel-accounts, or sandbox.channelAccounts for an embedded one",
    );
  }
  const all = setup.config.wallets.map((wallet, index) => ({ wallet, index })).filter((w) => w.wallet.chain === 'wasm');
  const chosen = only === undefined ? all : all.filter((w) => w.wallet.id === only);
  if (chosen.length === 0) {
    throw new DltError(
      'E_USAGE',
      only === undefined
        ? `${setup.source} has no chain B wallet (wallets[] with chain: wasm)`
        : `${setup.source} has no chain B wallet ${JSON.stringify(only)}`,
    );
  }
  return chosen;
}

/** The wallet's key: the funding account. */
function funderOf(setup: Setup, w: { wallet: Wallet; index: number }): Keypair {
  const where = `wallets.${w.index}.key`;
  const seed = readSecret(w.wallet.key, where, setup.env);
  try {
    return Keypair.fromSecret(seed);
  } catch (cause) {
    throw new DltError('E_CONFIG_SECRET', `${where}: not a chain B secret seed`, { cause, details: { where } });
  }
}

/** A file name part from a wallet id: letters, digits, dot, dash and underscore are kept. */
function fileStem(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}

interface SeedFile {
  readonly key: Keypair;
  readonly path: string;
}

/** Writes each new seed to a file of its own that did not exist (never overwriting one), numbered on. */
function writeSeeds(dir: string, stem: string, keys: readonly Keypair[], firstNumber: number): SeedFile[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files: SeedFile[] = [];
  let n = firstNumber;
  for (const key of keys) {
    while (existsSync(join(dir, `${stem}-channel-${n}.seed`))) n++;
    const path = join(dir, `${stem}-channel-${n}.seed`);
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, `${key.secret()}\n`);
    } finally {
      closeSync(fd);
    }
    files.push({ key, path });
    n++;
  }
  return files;
}

/** Never applied: the chain refused the batch, it failed whole, or it expired unincluded. */
function neverApplied(e: unknown): boolean {
  return isDltError(e, 'E_CHAIN_TX_REFUSED') || isDltError(e, 'E_CHAIN_TX_EXPIRED');
}

export async function createChannelsFromConfig(request: ChannelsFromConfig, io: CliIo): Promise<number> {
  const setup = checkedSetup(request.config, io, { strategies: false, connection: false });
  const chosen = walletsOf(setup, request.wallet);
  const wasm = setup.config.chains.wasm;
  if (wasm === undefined) throw new DltError('E_CONFIG_INVALID', `${setup.source}: chains.wasm is not configured`);
  const funders = chosen.map((w) => funderOf(setup, w));
  const configDir = dirname(setup.configPath);
  const dir = resolve(configDir, request.dir ?? 'channels');
  for (const [i, w] of chosen.entries()) {
    const funder = funders[i] as Keypair;
    const keys = Array.from({ length: request.count }, () => Keypair.random());
    const files = writeSeeds(dir, fileStem(w.wallet.id), keys, w.wallet.channelAccounts.length + 1);
    const created: SeedFile[] = [];
    for (let at = 0; at < files.length; at += BATCH) {
      const batch = files.slice(at, at + BATCH);
      const queue = batch.map((f) => f.key);
      try {
        await createChannelAccounts({
          rpcUrl: wasm.rpcUrl,
          networkPassphrase: wasm.networkPassphrase,
          funder,
          count: batch.length,
          startingBalance: request.balance,
          newKey: () => queue.shift() as Keypair,
        });
      } catch (e) {
        const rest = files.slice(at);
        if (neverApplied(e)) for (const f of rest) rmSync(f.path, { force: true });
        io.stderr(
          `wallet ${w.wallet.id}: ${created.length} of ${files.length} channel account(s) created before this failed; ` +
            (neverApplied(e)
              ? 'the seed files of the rest were removed (never applied)\n'
              : `the seed files of the rest stay in ${dir}: their accounts may exist, look them up before reusing or deleting them\n`),
        );
        report(io, w, funder, created, configDir);
        throw e;
      }
      created.push(...batch);
    }
    report(io, w, funder, created, configDir);
  }
  return EXIT_OK;
}

/** The public keys, and the references to add to the configuration (never a seed). */
function report(
  io: CliIo,
  w: { wallet: Wallet; index: number },
  funder: Keypair,
  created: readonly SeedFile[],
  configDir: string,
): void {
  if (created.length === 0) return;
  io.stdout(
    `wallet ${w.wallet.id} (${funder.publicKey()}): created and funded ${created.length} channel account(s); seeds in files of mode 0600\n`,
  );
  for (const f of created) io.stdout(`  ${f.key.publicKey()}  ${f.path}\n`);
  io.stdout(`add under wallets[${w.index}].channelAccounts (wallet ${w.wallet.id}):\n`);
  for (const f of created) io.stdout(`  - { file: ${JSON.stringify(relative(configDir, f.path))} }\n`);
}
