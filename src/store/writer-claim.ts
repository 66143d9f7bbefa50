/**
 * One writing process per state file. `dlt-mm run`, `dlt-mm cancel-all` and anything else that opens the
 * store to trade claims it first: two processes sending from one wallet would fight over its nonces, and each
 * would take the other's orders for orders it does not know. The claim is a file beside the state file
 * (`<state>.claim`) naming the holder (pid, host, start time), its modification time refreshed every few
 * seconds while the holder lives. A claim is taken over when its holder is gone: on the same host when the
 * process no longer exists (a crash, SIGKILL), on another host (a re-created container on a shared volume)
 * when it has not been refreshed for `staleMs`. Time and the refresh timer come from the `Clock` it is given.
 * Readers (`dlt-mm orders`) claim nothing.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock.ts';
import { DltError } from '../core/errors.ts';

export interface ClaimHolder {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  readonly token: string;
  readonly command: string;
}

export interface ClaimOptions {
  /** How often the holder refreshes its claim; default 5 s. */
  readonly refreshMs?: number;
  /** A claim from another host not refreshed for this long is taken over; default 30 s. */
  readonly staleMs?: number;
  /** Whether a process exists on this host (injectable for tests). */
  readonly alive?: (pid: number) => boolean;
}

export interface WriterClaim {
  readonly path: string;
  /** Gives the claim up (only while it is still ours). */
  release(): void;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): ClaimHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ClaimHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string' || typeof parsed.token !== 'string')
      return null;
    return {
      pid: parsed.pid,
      host: parsed.host,
      token: parsed.token,
      startedAt: String(parsed.startedAt ?? '?'),
      command: String(parsed.command ?? '?'),
    };
  } catch {
    return null;
  }
}

/** Writes our claim unless one is there already (then false). */
function takeClaim(path: string, me: ClaimHolder, statePath: string): boolean {
  try {
    writeFileSync(path, `${JSON.stringify(me)}\n`, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new DltError('E_STORE_CLAIMED', `cannot claim the state file ${statePath}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
}

/** Milliseconds since the claim file was last refreshed (infinite when it is gone). */
function claimAgeMs(path: string, now: number): number {
  try {
    return now - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

interface Takeover {
  readonly path: string;
  readonly statePath: string;
  readonly me: ClaimHolder;
  readonly alive: (pid: number) => boolean;
  readonly staleMs: number;
  readonly now: number;
}

/**
 * The claim another holder left: refused while that holder lives; otherwise removed and taken, unless another
 * process was quicker.
 */
function takeOver({ path, statePath, me, alive, staleMs, now }: Takeover): void {
  const holder = readHolder(path);
  const gone =
    holder === null ||
    (holder.host === me.host ? holder.pid === me.pid || !alive(holder.pid) : claimAgeMs(path, now) > staleMs);
  if (!gone) {
    const where = holder.host === me.host ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.host}`;
    throw new DltError(
      'E_STORE_CLAIMED',
      `state file ${statePath} is in use by ${where} (${holder.command}, since ${holder.startedAt}): stop it first` +
        (holder.host === me.host
          ? ''
          : `; if that host is gone, the claim lapses ${Math.ceil(staleMs / 1000)} s after its last refresh`),
      { details: { path, pid: holder.pid, host: holder.host } },
    );
  }
  try {
    unlinkSync(path);
  } catch {
    // Already removed by a process that is taking it over too.
  }
  if (!takeClaim(path, me, statePath)) {
    const other = readHolder(path);
    throw new DltError('E_STORE_CLAIMED', `state file ${statePath} was just claimed by process ${other?.pid ?? '?'}`, {
      details: { path },
    });
  }
}

/** Claims `statePath` for this process, its claim refreshed on `clock`'s timer until released. */
export function claimWriter(statePath: string, clock: Clock, options: ClaimOptions = {}): WriterClaim {
  const path = `${statePath}.claim`;
  const me: ClaimHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date(clock.now()).toISOString(),
    token: randomBytes(8).toString('hex'),
    command: process.argv.slice(1).join(' ').slice(0, 200),
  };
  mkdirSync(dirname(path), { recursive: true });
  if (!takeClaim(path, me, statePath)) {
    const alive = options.alive ?? processExists;
    takeOver({ path, statePath, me, alive, staleMs: options.staleMs ?? 30_000, now: clock.now() });
  }
  const refresh = clock.setRepeating(() => {
    try {
      const at = new Date(clock.now());
      utimesSync(path, at, at);
    } catch {
      // A claim file removed by hand is not recreated; the next start claims afresh.
    }
  }, options.refreshMs ?? 5_000);
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      refresh.cancel();
      if (readHolder(path)?.token !== me.token) return;
      try {
        unlinkSync(path);
      } catch {
        // Gone already.
      }
    },
  };
}
