import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isDltError } from '../../../src/core/errors.ts';
import { openStore } from '../../../src/store/store.ts';
import { claimWriter } from '../../../src/store/writer-claim.ts';

let dir: string;
let state: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-claim-'));
  state = join(dir, 'state', 'bot.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const claimFile = () => `${state}.claim`;
const holder = (pid: number, host = hostname()) =>
  writeFileSync(
    claimFile(),
    JSON.stringify({ pid, host, token: 'theirs', startedAt: '2026-11-20T08:00:00.000Z', command: 'dlt-mm run' }),
    { flag: 'wx' },
  );
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (isDltError(e, 'E_STORE_CLAIMED')) return e.message;
    throw e;
  }
  return null;
};
/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid as number;

describe('the state file writer claim', () => {
  it('is refused while another live process on this host holds it, naming that process', () => {
    // A first claim and release makes the directory; this process's parent is alive for the whole test.
    claimWriter(state).release();
    holder(process.ppid);
    expect(refusal(() => claimWriter(state))).toContain(
      `in use by process ${process.ppid} (dlt-mm run, since 2026-11-20T08:00:00.000Z): stop it first`,
    );
  });

  it('is taken over from a process that is gone (a crash), and from an earlier life of this very pid', () => {
    claimWriter(state).release();
    holder(deadPid());
    const c = claimWriter(state);
    expect(JSON.parse(readFileSync(claimFile(), 'utf8')).pid).toBe(process.pid);
    c.release();
    holder(process.pid);
    claimWriter(state).release();
    expect(existsSync(claimFile())).toBe(false);
  });

  it('from another host: refused while refreshed, taken over once it lapsed', () => {
    let now = Date.now();
    claimWriter(state).release();
    holder(1, 'other-host');
    expect(refusal(() => claimWriter(state, { now: () => now, staleMs: 30_000 }))).toContain(
      'process 1 on host other-host',
    );
    now += 31_000;
    const c = claimWriter(state, { now: () => now, staleMs: 30_000 });
    expect(JSON.parse(readFileSync(claimFile(), 'utf8')).host).toBe(hostname());
    c.release();
  });

  it('is kept fresh while held, and a release never removes a claim that is no longer ours', async () => {
    const c = claimWriter(state, { refreshMs: 20 });
    const past = new Date(Date.now() - 60_000);
    utimesSync(claimFile(), past, past);
    await new Promise((r) => setTimeout(r, 100));
    expect(Date.now() - statSync(claimFile()).mtimeMs).toBeLessThan(10_000);
    // Someone removed our claim by hand and another process claimed the file: our release leaves theirs.
    rmSync(claimFile());
    holder(process.ppid);
    c.release();
    expect(JSON.parse(readFileSync(claimFile(), 'utf8')).token).toBe('theirs');
  });

  it('keeps a second trading process off a store another process has open, until that one is killed', async () => {
    const storeModule = fileURLToPath(new URL('../../../src/store/store.ts', import.meta.url));
    const script = `
      import { openStore } from ${JSON.stringify(storeModule)};
      openStore(${JSON.stringify(state)});
      console.log('open');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', () => resolve());
        child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
      expect(refusal(() => openStore(state))).toContain(`in use by process ${child.pid}`);
      child.kill('SIGKILL');
      await exited;
      const store = openStore(state);
      store.close();
      expect(existsSync(claimFile())).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
