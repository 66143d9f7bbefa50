/**
 * `dlt-mm sandbox` as a user runs it: two sandboxes started side by side on different ports (flags and a
 * YAML settings file), each printing its summary and writing its manifest, serving the venue with the
 * simulated market's books already quoted; then stopped with SIGINT (Ctrl-C) and SIGTERM, after which no
 * child process is left, no port is bound and the manifests are gone. Bad command lines exit with 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rpc } from '@stellar/stellar-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../../src/cli/main.ts';
import { PROJECT_ROOT } from '../../../../src/sandbox/evm/compile.ts';
import type { Json } from '../../../support/sandbox/api/sandbox-clients.ts';
import { alive } from '../../../support/processes.ts';

const dir = mkdtempSync(join(tmpdir(), 'dlt-mm-sandbox-cli-'));
const running: ChildProcess[] = [];

afterAll(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Three consecutive free ports for `--port-base`. */
async function portBase(avoid: number[] = []): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    if (avoid.some((a) => Math.abs(a - base) < 3)) continue;
    if ((await portFree(base)) && (await portFree(base + 1)) && (await portFree(base + 2))) return base;
  }
  throw new Error('no three consecutive free ports');
}

interface Started {
  readonly child: ChildProcess;
  readonly out: () => string;
  readonly exited: Promise<number | null>;
}

function startCli(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'src/cli/dlt-mm.ts'), 'sandbox', ...args], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`no summary within 60 s:\n${out}\n${err}`)), 60_000);
    const check = () => {
      if (out.includes('Ctrl-C stops everything.')) {
        clearTimeout(guard);
        resolve({ child, out: () => out, exited });
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => reject(new Error(`exited with ${code} before ready:\n${out}\n${err}`)));
  });
}

function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

describe('dlt-mm sandbox', () => {
  it('runs two sandboxes side by side and stops each cleanly on SIGINT and SIGTERM', async () => {
    const baseA = await portBase();
    const baseB = await portBase([baseA]);
    writeFileSync(
      join(dir, 'other.yaml'),
      'api:\n  participantId: P-SECOND\nflow:\n  levels: 2\nwasm:\n  channelAccounts: 12\n',
    );
    const fast = ['--block-time', '500', '--ledger-interval', '500'];
    const [a, b] = await Promise.all([
      startCli(['--port-base', String(baseA), ...fast, '--manifest', 'first.json', '--channel-accounts', '3']),
      startCli([
        '--config',
        'other.yaml',
        '--port-base',
        String(baseB),
        ...fast,
        '--manifest',
        join(dir, 'second.json'),
      ]),
    ]);
    expect(a.out()).toMatch(/^dlt-mm sandbox ready in \d+\.\d s/);
    for (const url of [
      `http://127.0.0.1:${baseA}/api/v1`,
      `http://127.0.0.1:${baseA + 1}/`,
      `http://127.0.0.1:${baseA + 2}/rpc`,
    ])
      expect(a.out()).toContain(url);
    const manifests = ['first.json', 'second.json'].map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json);
    expect(manifests.map((m) => [m.venue.restUrl, m.venue.participantId])).toEqual([
      [`http://127.0.0.1:${baseA}/api/v1`, 'P-SANDBOX-0001'],
      [`http://127.0.0.1:${baseB}/api/v1`, 'P-SECOND'],
    ]);
    for (const m of manifests) {
      expect(
        m.wallets
          .filter((w: Json) => w.marketMaker)
          .map((w: Json) => w.chain)
          .toSorted(),
      ).toEqual(['evm', 'wasm']);
      expect(m.chains.evm.chainId).toBe(80002);
      const pairs = (await (await fetch(`${m.venue.restUrl}/tradingpairs`)).json()) as Json;
      expect(pairs.total_count).toBe(4);
      for (const p of pairs.items) {
        const book = (await (await fetch(`${m.venue.restUrl}/tradingpairs/${p.id}/pricelevels`)).json()) as Json;
        expect([p.symbol, book.buy.length > 0, book.sell.length > 0]).toEqual([p.symbol, true, true]);
      }
    }
    // The market maker's channel accounts: as many as each was asked for, funded on chain B.
    const channels = manifests.map(
      (m) => (m.wallets.find((w: Json) => w.chain === 'wasm' && w.marketMaker).channelAccounts as Json[]).length,
    );
    expect(channels).toEqual([3, 12]);
    const server = new rpc.Server(manifests[1].chains.wasm.rpcUrl, { allowHttp: true });
    const mm = manifests[1].wallets.find((w: Json) => w.chain === 'wasm' && w.marketMaker);
    const accounts = await Promise.all(mm.channelAccounts.map((c: Json) => server.getAccount(c.publicKey)));
    expect(new Set(accounts.map((a) => a.accountId())).size).toBe(12);
    const levels = (await (
      await fetch(`${manifests[1].venue.restUrl}/tradingpairs/tp-evm-bond26-eure/pricelevels`)
    ).json()) as Json;
    expect(levels.buy).toHaveLength(2);
    const children = [a, b].map((s) => childPids(s.child.pid as number));
    expect(children.map((c) => c.length)).toEqual([1, 1]);

    a.child.kill('SIGINT');
    b.child.kill('SIGTERM');
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    expect(a.out()).toContain('sandbox stopped');
    expect(children.flat().map(alive)).toEqual([false, false]);
    const ports = [baseA, baseA + 1, baseA + 2, baseB, baseB + 1, baseB + 2];
    expect(await Promise.all(ports.map(portFree))).toEqual(ports.map(() => true));
    expect(['first.json', 'second.json'].map((f) => existsSync(join(dir, f)))).toEqual([false, false]);
  });

  it('refuses a bad command line with exit status 2', async () => {
    let err = '';
    const io = {
      stdout: () => undefined,
      stderr: (t: string) => (err += t),
      readFile: () => '',
      writeFile: () => undefined,
      env: {},
      cwd: dir,
    };
    expect(await main(['sandbox', '--bogus', '1'], io)).toBe(2);
    expect(await main(['sandbox', '--port-base', 'x'], io)).toBe(2);
    expect(err).toContain('unknown option --bogus');
  });
});
