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
import { TestClock } from '../../support/clock.ts';

let dir: string;
let state: string;
/** Starts at the wall time so that the claim file's modification time (set by the file system) is of its day. */
let clock: TestClock;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-claim-'));
  state = join(dir, 'state', 'bot.sqlite');
  clock = new TestClock(Date.now());
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const claimFile = () => `${state}.claim`;
/** The claim file's modification time to the millisecond (the file system keeps finer, as a float). */
const refreshedAt = () => Math.round(statSync(claimFile()).mtimeMs);
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
    claimWriter(state, clock).release();
    holder(process.ppid);
    expect(refusal(() => claimWriter(state, clock))).toContain(
      `in use by process ${process.ppid} (dlt-mm run, since 2026-11-20T08:00:00.000Z): stop it first`,
    );
  });

  it('is taken over from a process that is gone (a crash), and from an earlier life of this very pid', () => {
    claimWriter(state, clock).release();
    holder(deadPid());
    const c = claimWriter(state, clock);
    expect(JSON.parse(readFileSync(claimFile(), 'utf8')).pid).toBe(process.pid);
    c.release();
    holder(process.pid);
    claimWriter(state, clock).release();
    expect(existsSync(claimFile())).toBe(false);
  });

  it('from another host: refused while refreshed, taken over once it lapsed', () => {
    claimWriter(state, clock).release();
    holder(1, 'other-host');
    expect(refusal(() => claimWriter(state, clock, { staleMs: 30_000 }))).toContain('process 1 on host other-host');
    clock.advance(31_000);
    const c = claimWriter(state, clock, { staleMs: 30_000 });
    expect(JSON.parse(readFileSync(claimFile(), 'utf8')).host).toBe(hostname());
    c.release();
  });

  it('is kept fresh on the clock while held, and a release never removes a claim that is no longer ours', () => {
    const c = claimWriter(state, clock, { refreshMs: 5_000 });
    const past = new Date(clock.now() - 60_000);
    utimesSync(claimFile(), past, past);
    clock.advance(4_999);
    expect(refreshedAt()).toBe(past.getTime());
    clock.advance(1);
    expect(refreshedAt()).toBe(clock.now());
    clock.advance(5_000);
    expect(refreshedAt()).toBe(clock.now());
    // Someone removed our claim by hand and another process claimed the file: our release leaves theirs.
    rmSync(claimFile());
    holder(process.ppid);
    c.release();
    expect(JSON.parse(readFileSync(claimFile(), 'utf8')).token).toBe('theirs');
    // Released, the claim is refreshed no more.
    expect(clock.pendingDelays()).toEqual([]);
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
