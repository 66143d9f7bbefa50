import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { freePort } from '../../../src/sandbox/net.ts';
import { startWasmNode, type WasmNode } from '../../../src/sandbox/wasm/node.ts';

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

async function run(argv: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    readFile: (p) => readFileSync(p, 'utf8'),
    writeFile: () => undefined,
    env,
    cwd: dir,
  });
  return { code, stdout, stderr };
}

describe('dlt-mm channels create', () => {
  it('creates and funds the accounts, writes their seeds to a private file and prints only public keys', async () => {
    const r = await run(
      [
        'channels',
        'create',
        '--rpc-url',
        `http://127.0.0.1:${node.rpc.port}/rpc`,
        '--passphrase',
        node.emulator.passphrase,
        '--funder-env',
        'FUNDER',
        '--count',
        '3',
        '--out',
        'channels.txt',
        '--balance',
        '7',
      ],
      { FUNDER: funder.secret() },
    );
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
    const args = [
      'channels',
      'create',
      '--rpc-url',
      `http://127.0.0.1:${node.rpc.port}/rpc`,
      '--passphrase',
      node.emulator.passphrase,
      '--funder-env',
      'FUNDER',
      '--out',
      'x.txt',
    ];
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
