/**
 * A sandbox start that fails in a late phase stops what the earlier phases started: with the API's port
 * already taken, the start fails after the chains, contracts, indexers, scheduler and oracles are up, and
 * then no chain A node process is left, the node's instance folder is gone and the chains' public ports
 * (their fault-injecting proxies, started first) are free again.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDltError } from '../../../../src/core/errors.ts';
import { PROJECT_ROOT } from '../../../../src/sandbox/evm/compile.ts';
import { LOOPBACK } from '../../../../src/sandbox/net.ts';
import { mergeSettings } from '../../../../src/sandbox/venue/options.ts';
import { startSandbox, type SandboxOptions } from '../../../../src/sandbox/venue/start.ts';
import { FAST_SANDBOX } from '../../../support/sandbox/api/sandbox-clients.ts';

async function listening(port = 0): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK, resolve);
  });
  return server;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on now (bound and released). */
async function freePort(): Promise<number> {
  const server = await listening();
  const port = (server.address() as { port: number }).port;
  await close(server);
  return port;
}

/** This process's child processes (but the `ps` that lists them), by command. */
function children(): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.endsWith(' ps'));
  } catch {
    return []; // ps exits with 1 when there is none
  }
}

/** The instance folders of chain A nodes this process started (node.ts names them by port and pid). */
function nodeDirs(): string[] {
  const dir = join(PROJECT_ROOT, '.sandbox');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(`-${process.pid}`)) : [];
}

describe('a sandbox start failing in a late phase', () => {
  it('stops what the earlier phases started', async () => {
    const childrenBefore = children();
    const dirs = nodeDirs();
    const [evm, wasm] = [await freePort(), await freePort()];
    const blocker = await listening();
    const api = (blocker.address() as { port: number }).port;
    let error: unknown;
    try {
      await startSandbox(mergeSettings(FAST_SANDBOX, { ports: { api, evm, wasm } }) as SandboxOptions);
    } catch (e) {
      error = e;
    }
    await close(blocker);

    expect(isDltError(error, 'E_SANDBOX')).toBe(true);
    expect((error as Error).message).toContain('EADDRINUSE');
    expect(children()).toEqual(childrenBefore);
    expect(nodeDirs()).toEqual(dirs);
    for (const port of [evm, wasm]) await close(await listening(port));
  }, 120_000);
});
