import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/sandbox/net.ts';
import { startWasmNode, type WasmNode } from '../../../src/sandbox/wasm/node.ts';
import { runCli } from '../../support/cli-io.ts';

let node: WasmNode;
let dir: string;
const funder = Keypair.random();

beforeAll(async () => {
  node = await startWasmNode({ port: await freePort(), ledgerIntervalMs: 100 });
  node.emulator.fundAccount(funder.publicKey(), 1_000n * 10_000_000n);
  dir = mkdtempSync(join(tmpdir(), 'dltmm-channels-'));
});
afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

function run(argv: string[], env: Record<string, string>) {
  return runCli(argv, { readFile: (p) => readFileSync(p, 'utf8'), writeFile: () => undefined, env, cwd: dir });
}

/** `dlt-mm channels create` on the emulator, funded from the seed in FUNDER, with `more` arguments. */
const create = (...more: string[]) => [
  'channels',
  'create',
  '--rpc-url',
  `http://127.0.0.1:${node.rpc.port}/rpc`,
  '--passphrase',
  node.emulator.passphrase,
  '--funder-env',
  'FUNDER',
  ...more,
];

describe('dlt-mm channels create', () => {
  it('creates and funds the accounts, writes their seeds to a private file and prints only public keys', async () => {
    const r = await run(create('--count', '3', '--out', 'channels.txt', '--balance', '7'), { FUNDER: funder.secret() });
    expect(r.code).toBe(0);
    const file = join(dir, 'channels.txt');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const seeds = readFileSync(file, 'utf8').trim().split('\n');
    expect(seeds).toHaveLength(3);
    const keys = seeds.map((s) => Keypair.fromSecret(s));
    expect(keys.map((k) => node.emulator.world.accounts.get(k.publicKey())?.balance)).toEqual([
      70_000_000n,
      70_000_000n,
      70_000_000n,
    ]);
    for (const k of keys) expect(r.stdout).toContain(k.publicKey());
    for (const s of seeds) expect(r.stdout).not.toContain(s);
    expect(r.stdout).not.toContain(funder.secret());
  });

  it('refuses to run without the funding seed or with a bad count, before touching the chain', async () => {
    const args = create('--out', 'x.txt');
    expect(await run([...args, '--count', '2'], {})).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/E_CONFIG_SECRET.*FUNDER/),
    });
    expect((await run([...args, '--count', '0'], { FUNDER: funder.secret() })).code).toBe(2);
    expect((await run(['channels', 'create', '--count', '2'], {})).stderr).toMatch(
      /missing --rpc-url, --passphrase, --funder-env, --out/,
    );
  });
});

/** A bot configuration with two chain B wallets (one with a channel account already) and a chain A one. */
function writeConfig(wallets: Record<string, Keypair>): string {
  writeFileSync(join(dir, 'main.seed'), `${wallets.main?.secret()}\n`);
  const text = `venue:
  restUrl: http://127.0.0.1:1/api/v1
  wsUrl: ws://127.0.0.1:1/event/realtime
  wsHost: 127.0.0.1
  apiKey: { env: NOT_NEEDED_HERE }
  accessToken: { env: NOT_NEEDED_EITHER }
chains:
  evm: { rpcUrl: "http://127.0.0.1:1/", chainId: 80002 }
  wasm:
    rpcUrl: http://127.0.0.1:${node.rpc.port}/rpc
    networkPassphrase: ${JSON.stringify(node.emulator.passphrase)}
wallets:
  - { id: evm-main, chain: evm, key: { env: EVM_KEY } }
  - id: wasm-main
    chain: wasm
    key: { file: main.seed }
    channelAccounts:
      - { env: OLD_CHANNEL }
  - { id: wasm/poor, chain: wasm, key: { env: POOR_SEED } }
store: { path: state.sqlite }
`;
  writeFileSync(join(dir, 'bot.yaml'), text);
  return 'bot.yaml';
}

const balanceOf = (k: string) => node.emulator.world.accounts.get(k)?.balance;

describe('dlt-mm channels create --config', () => {
  const main = Keypair.random();
  const poor = Keypair.random();
  beforeAll(() => {
    node.emulator.fundAccount(main.publicKey(), 1_000n * 10_000_000n);
    node.emulator.fundAccount(poor.publicKey(), 2n * 10_000_000n);
  });

  it("funds N accounts from the wallet, one seed file each that the configuration's {file} references read, and prints only public keys", async () => {
    const config = writeConfig({ main });
    const before = balanceOf(main.publicKey()) as bigint;
    const r = await run(
      ['channels', 'create', '--config', config, '--wallet', 'wasm-main', '--count', '3', '--balance', '7'],
      { POOR_SEED: poor.secret() },
    );
    expect(r).toMatchObject({ code: 0, stderr: '' });
    // The references to add, relative to the configuration's directory, numbered after the one it has.
    const refs = [...r.stdout.matchAll(/- \{ file: "([^"]+)" \}/g)].map((m) => m[1] as string);
    expect(refs).toEqual([
      'channels/wasm-main-channel-2.seed',
      'channels/wasm-main-channel-3.seed',
      'channels/wasm-main-channel-4.seed',
    ]);
    const keys = refs.map((f) => Keypair.fromSecret(readFileSync(join(dir, f), 'utf8').trim()));
    expect(refs.map((f) => statSync(join(dir, f)).mode & 0o777)).toEqual([0o600, 0o600, 0o600]);
    expect(keys.map((k) => balanceOf(k.publicKey()))).toEqual([70_000_000n, 70_000_000n, 70_000_000n]);
    // Funded by the wallet itself: three starting balances and the fee of one transaction of three operations.
    expect(before - (balanceOf(main.publicKey()) as bigint)).toBe(3n * 70_000_000n + 300n);
    for (const k of keys) expect(r.stdout).toContain(k.publicKey());
    for (const k of [...keys, main]) expect(r.stdout).not.toContain(k.secret());
    expect(r.stdout).toContain('add under wallets[1].channelAccounts (wallet wasm-main)');

    // Run again: new files, never one overwritten.
    const again = await run(['channels', 'create', '--config', config, '--wallet', 'wasm-main', '--count', '1'], {});
    expect(again.stdout).toContain('channels/wasm-main-channel-5.seed');
    expect(Keypair.fromSecret(readFileSync(join(dir, refs[0] as string), 'utf8').trim()).publicKey()).toBe(
      keys[0]?.publicKey(),
    );
  });

  it('a batch the chain refused never applied: its seed files are removed and the command fails', async () => {
    const config = writeConfig({ main });
    const r = await run(
      ['channels', 'create', '--config', config, '--wallet', 'wasm/poor', '--count', '3', '--dir', 'poor'],
      {
        POOR_SEED: poor.secret(),
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/0 of 3 channel account\(s\) created[\s\S]*removed[\s\S]*E_CHAIN_TX_REFUSED/);
    expect(readdirSync(join(dir, 'poor'))).toEqual([]);
    expect(balanceOf(poor.publicKey())).toBeLessThanOrEqual(2n * 10_000_000n);
  });

  it('refuses, before touching the chain, a sandbox configuration, an unknown wallet and a mix with the direct flags', async () => {
    writeFileSync(join(dir, 'sandbox.yaml'), 'sandbox: { embedded: true }\n');
    const sandbox = await run(['channels', 'create', '--config', 'sandbox.yaml', '--count', '2'], {});
    expect([sandbox.code, sandbox.stderr]).toEqual([2, expect.stringMatching(/sandbox\.channelAccounts/)]);
    const config = writeConfig({ main });
    const unknown = await run(['channels', 'create', '--config', config, '--wallet', 'evm-main', '--count', '2'], {});
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('no chain B wallet "evm-main"')]);
    const secretless = await run(['channels', 'create', '--config', config, '--count', '2', '--dir', 'none'], {});
    expect([secretless.code, secretless.stderr]).toEqual([1, expect.stringMatching(/E_CONFIG_SECRET.*POOR_SEED/)]);
    expect(existsSync(join(dir, 'none'))).toBe(false);
    const mixed = await run(['channels', 'create', '--config', config, '--count', '2', '--out', 'x.txt'], {});
    expect([mixed.code, mixed.stderr]).toEqual([2, expect.stringContaining('drop --out')]);
  });
});
