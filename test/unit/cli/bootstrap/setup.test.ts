import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../support/cli-io.ts';

const ladder = fileURLToPath(new URL('../../../../strategies/ladder.yaml', import.meta.url));
let dir: string;
let venue: Server;
let requests = 0;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-setup-'));
  requests = 0;
  venue = createServer((_req, res) => {
    requests++;
    res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => venue.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await new Promise((resolve) => venue.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function run(argv: string[], env: Record<string, string> = {}) {
  return runCli(argv, {
    readFile: (p) => readFileSync(p, 'utf8'),
    writeFile: (p, t) => writeFileSync(p, t),
    env,
    cwd: dir,
  });
}

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

const SECRETS = { K: 'key', T: 'token', A: `0x${'11'.repeat(32)}` };
const realVenue = (pairs: string) => {
  const port = (venue.address() as AddressInfo).port;
  return `venue: { restUrl: 'http://127.0.0.1:${port}/api/v1', wsUrl: 'ws://127.0.0.1:${port}/event/realtime', wsHost: 127.0.0.1, dateHeader: x-amz-date, apiKey: { env: K }, accessToken: { env: T } }
chains: { evm: { rpcUrl: 'http://127.0.0.1:${port}', chainId: 1 } }
wallets: [{ id: a, chain: evm, key: { env: A } }]
store: { path: state/bot.sqlite }
pairs:
${pairs}
`;
};

describe('a configuration is checked whole before anything opens', () => {
  it('run against a venue with a missing strategy file lists the problem, connects to nothing and creates no state file', async () => {
    const config = write(
      'bot.yaml',
      realVenue(
        `  - { blockChain: EVM_CHAIN_TESTNET, base: BOND26, quote: EURe, wallet: a, strategy: missing.yaml }\n  - { blockChain: EVM_CHAIN_TESTNET, base: XB, quote: EURe, wallet: a, strategy: ${ladder} }`,
      ),
    );
    const r = await run(['run', '--config', config], SECRETS);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /E_CONFIG_INVALID: bot\.yaml has 1 problem\(s\):\n {2}pairs\.0\.strategy: .*missing\.yaml/,
    );
    expect(requests).toBe(0);
    expect(existsSync(join(dir, 'state'))).toBe(false);
  });

  it('run lists a missing sandbox manifest, a missing strategy and an unset secret together; config check finds the same', async () => {
    write('bot.yaml', `sandbox: { manifest: gone.json, strategy: none.yaml }\nstore: { path: state/bot.sqlite }\n`);
    const r = await run(['run', '--config', 'bot.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/has 2 problem\(s\)/);
    expect(r.stderr).toMatch(/sandbox\.manifest: gone\.json cannot be read/);
    expect(r.stderr).toMatch(/sandbox\.strategy: .*none\.yaml/);
    expect(existsSync(join(dir, 'state'))).toBe(false);
    const check = await run(['config', 'check', 'bot.yaml']);
    expect({ code: check.code, problems: check.stderr.match(/has \d problem/)?.[0] }).toEqual({
      code: 1,
      problems: 'has 2 problem',
    });
    const secrets = await run(
      [
        'config',
        'check',
        write(
          'venue.yaml',
          realVenue(`  - { blockChain: EVM_CHAIN_TESTNET, base: BOND26, quote: EURe, wallet: a, strategy: ${ladder} }`),
        ),
      ],
      { K: 'key' },
    );
    expect(secrets.stderr).toMatch(/has 2 problem\(s\)/);
    expect(secrets.stderr).toMatch(/venue\.accessToken/);
    expect(secrets.stderr).toMatch(/wallets\.0\.key/);
  });

  it('a manifest that is not one, and keys a sandbox would ignore, are problems too', async () => {
    write('m.json', JSON.stringify({ venue: { restUrl: 'http://127.0.0.1:1' }, chains: {}, wallets: [] }));
    const port = (venue.address() as AddressInfo).port;
    write(
      'bot.yaml',
      `sandbox: { manifest: m.json, strategy: ${ladder} }\nvenue: { restUrl: 'http://127.0.0.1:${port}/api/v1', wsUrl: 'ws://127.0.0.1:${port}/x', wsHost: h, dateHeader: x-amz-date, apiKey: { env: K }, accessToken: { env: T } }\n`,
    );
    const r = await run(['config', 'check', 'bot.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/venue: not used with sandbox\.manifest/);
    write('bot.yaml', `sandbox: { manifest: m.json, strategy: ${ladder} }\n`);
    const m = await run(['run', '--config', 'bot.yaml']);
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/sandbox\.manifest m\.json: venue\.wsUrl/);
    expect(requests).toBe(0);
  });
});
