import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AbiCoder } from 'ethers';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli-io.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const evmPair = fileURLToPath(new URL('../../fixtures/pairs/evm-pair.json', import.meta.url));
const wasmPair = fileURLToPath(new URL('../../fixtures/pairs/wasm-pair.json', import.meta.url));

/** A command line: the words split on spaces, and each `${value}` one argument whatever it holds. */
function argv(strings: TemplateStringsArray, ...values: string[]): string[] {
  return strings.flatMap((text, i) => [...text.split(' ').filter((w) => w !== ''), ...values.slice(i, i + 1)]);
}

async function run(argv: string[], files: Record<string, string> = {}, env: Record<string, string> = {}) {
  const r = await runCli(argv, {
    readFile: (p) => files[p] ?? readFileSync(p, 'utf8'),
    writeFile: (p, t) => (files[p] = t),
    env,
    cwd: root,
  });
  return { ...r, files };
}

describe('dlt-mm order encode', () => {
  it('prints the exact chain A bytes and the approval', async () => {
    const r = await run(
      argv`order encode --chain evm --pair-file ${evmPair} --side buy --qty 1.5 --price 101.2 --cross-id 42 --json`,
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.orderData).toBe(AbiCoder.defaultAbiCoder().encode(['uint64', 'uint64'], [15_000n, 1_012_000n]));
    expect(out.crossIdentifier).toBe(AbiCoder.defaultAbiCoder().encode(['uint32'], [42]));
    expect(out.approval).toMatchObject({ token: 'quote', amountNative: '152103600', amount: '152.1036', rateBps: 20 });
  });
  it('prints chain B words for a GTD sell', async () => {
    const r = await run(
      argv`order encode --chain wasm --pair-file ${wasmPair} --side sell --qty 2.5 --price 12.34 --validity gtd --lifetime 30 --reporting 1,2 --json`,
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.orderData).toHaveLength(384);
    expect(out.crossIdentifier).toBe('00000000');
    expect(out.approval).toMatchObject({ token: 'base', amountNative: '25000000' });
  });
  it('exits non-zero with the rule broken', async () => {
    const offTick = await run(
      argv`order encode --chain evm --pair-file ${evmPair} --side buy --qty 1.5 --price 101.25`,
    );
    expect(offTick.code).toBe(1);
    expect(offTick.stderr).toMatch(/E_RULE_TICK.*101\.25.*0\.1/);
    const lifetime = await run(
      argv`order encode --chain wasm --pair-file ${wasmPair} --side sell --qty 2.5 --price 12.34 --validity gtd --lifetime 91`,
    );
    expect(lifetime.code).toBe(1);
    expect(lifetime.stderr).toMatch(/E_RULE_LIFETIME/);
    const extended = await run(
      argv`order encode --chain evm --pair-file ${evmPair} --side buy --qty 1.5 --price 101.2 --condition ioc`,
    );
    expect(extended.stderr).toMatch(/E_ENCODING_UNSUPPORTED/);
    const crossId = await run(
      argv`order encode --chain wasm --pair-file ${wasmPair} --side sell --qty 2.5 --price 12.34 --cross-id 4294967296`,
    );
    expect(crossId.stderr).toMatch(/E_ENCODING_CROSS_ID/);
  });
  it('exits 2 on a malformed command line', async () => {
    expect((await run(['order', 'encode', '--chain', 'evm', '--bogus'])).code).toBe(2);
    expect((await run(['order', 'encode', '--chain', 'tron', '--pair-file', evmPair])).code).toBe(2);
    expect(
      (await run(argv`order encode --chain wasm --pair-file ${evmPair} --side buy --qty 1 --price 1`)).stderr,
    ).toMatch(/does not match the pair/);
  });
});

describe('dlt-mm order decode', () => {
  it('reverses encode on both chains', async () => {
    const enc = JSON.parse(
      (
        await run(
          argv`order encode --chain wasm --pair-file ${wasmPair} --side buy --qty 2.5 --price 12.34 --condition boc --cross-id 9 --json`,
        )
      ).stdout,
    );
    const dec = await run(
      argv`order decode --chain wasm --pair-file ${wasmPair} --order-data ${enc.orderData} --cross-id ${enc.crossIdentifier} --json`,
    );
    expect(JSON.parse(dec.stdout)).toMatchObject({
      quantity: '2.5',
      price: '12.34',
      condition: 'boc',
      crossIdentifier: '9',
    });
  });
  it('refuses an odd hex length and an 8-byte cross identifier', async () => {
    const odd = await run(argv`order decode --chain wasm --pair-file ${wasmPair} --order-data ${'0'.repeat(129)}`);
    expect(odd.code).toBe(1);
    expect(odd.stderr).toMatch(/E_ENCODING_HEX/);
    const cross = await run(
      argv`order decode --chain wasm --pair-file ${wasmPair} --order-data ${`${'0'.repeat(63)}1${'0'.repeat(63)}1`} --cross-id 0000000000000001`,
    );
    expect(cross.stderr).toMatch(/E_ENCODING_CROSS_ID/);
  });
});

describe('dlt-mm config', () => {
  it('check prints every problem and exits 1', async () => {
    const r = await run(['config', 'check', '/virtual/bad.yaml'], {
      '/virtual/bad.yaml': 'pairs: [{ base: B }]\nbogus: 1\n',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bogus/);
    expect(r.stderr).toMatch(/pairs\.0\.quote/);
    expect(r.stderr).toMatch(/pairs\.0\.blockChain/);
  });
  it('check validates a strategy file too', async () => {
    const r = await run(['config', 'check', '/virtual/s.yaml'], {
      '/virtual/s.yaml': 'kind: ladder\nladder: { sizes: ["1"], bidSpreadBps: 5, askSpreadBps: 5 }\n',
    });
    expect(r.stdout).toMatch(/valid ladder strategy/);
  });
});

describe('the real entry point', () => {
  it('runs under the pinned Node 24 with type stripping', () => {
    const node = process.execPath;
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' });
    expect(Number(version.slice(1).split('.')[0])).toBeGreaterThanOrEqual(24);
    const r = spawnSync(
      node,
      [
        'src/cli/dlt-mm.ts',
        'order',
        'encode',
        '--chain',
        'evm',
        '--pair-file',
        evmPair,
        '--side',
        'sell',
        '--qty',
        '0.5',
        '--price',
        '100',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/newSellOrder/);
  });
});
