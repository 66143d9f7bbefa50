/**
 * `npm run test:container`: proves the container image the way an orchestrator runs it. Builds the image
 * with podman (the project's Dockerfile, unchanged), checks what it holds (non-root user, no compiler, no
 * sandbox node, no development dependency) and its size; starts a sandbox on this host; runs the image with
 * a read-only root file system, no capabilities, the state on a named volume, the configuration mounted
 * read-only and every secret from the environment; waits for /readyz; checks that orders rest on both
 * chains; stops it as an orchestrator does (SIGTERM to the container's first process) and checks exit 0
 * with no order of ours left resting; then measures what a failover costs: restart to ready on the same
 * volume after that clean stop, and again after a crash (SIGKILL, orders left resting), whose orders the
 * next process must cancel when it stops. Prints a report; exits 1 at the first failed check.
 *
 * Needs root and podman: when podman or the base image is missing, ../shared/tools/container-base.sh
 * (beside the repository) installs podman from Debian's packages and makes a local stand-in for the
 * `node:24-bookworm-slim` base image. Not part of `npm test`. `CONTAINER_TEST_LOGS=<dir>` keeps each
 * container's log there.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { freePort } from '../../src/sandbox/net.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/venue/start.ts';
import { SESSION_LIMITS } from '../support/e2e/bot-config.ts';
import { until } from '../support/e2e/poll.ts';
import { SandboxChains } from '../support/e2e/sandbox-chains.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const IMAGE = 'localhost/dlt-mm:container-test';
const BASE_IMAGE = 'docker.io/library/node:24-bookworm-slim';
/** The machine's own script that installs podman and provides the base image where no registry is reachable. */
const BASE_SCRIPT = process.env.CONTAINER_BASE_SCRIPT ?? join(ROOT, '..', 'shared', 'tools', 'container-base.sh');
/** Longer than the bot's shutdown timeout (below), as a pod's termination grace period must be. */
const STOP_TIMEOUT_S = 90;
const SHUTDOWN_TIMEOUT_MS = 60_000;
const tag = `dlt-mm-test-${process.pid}`;

const report: string[] = [];
const line = (text: string) => {
  report.push(text);
  console.log(text);
};

class CheckFailed extends Error {}
function check(ok: boolean, what: string, detail = ''): void {
  if (!ok) throw new CheckFailed(`FAILED: ${what}${detail === '' ? '' : `\n${detail}`}`);
  line(`ok    ${what}`);
}

/**
 * Runs a command without blocking this process's event loop: the sandbox lives in this process, and the
 * bot in the container must reach it while podman builds, inspects, execs and stops.
 */
function run(
  cmd: string,
  args: readonly string[],
  options: { allowFail?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => {
      const result = { code: code ?? -1, out, err };
      if (result.code !== 0 && options.allowFail !== true)
        reject(new CheckFailed(`FAILED: ${cmd} ${args.join(' ')} exited ${result.code}\n${err.slice(-3000)}`));
      else resolve(result);
    });
  });
}
const podman = (args: readonly string[], options: { allowFail?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
  run('podman', ['--runtime', 'runc', ...args], options);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function ensurePodman(): Promise<void> {
  const have = spawnSync('podman', ['image', 'exists', BASE_IMAGE]).status === 0;
  if (have) return;
  if (!existsSync(BASE_SCRIPT))
    throw new CheckFailed(
      `FAILED: podman or the base image ${BASE_IMAGE} is missing, and ${BASE_SCRIPT} is not there to make them`,
    );
  line(`podman or the base image missing: running ${BASE_SCRIPT}`);
  execFileSync('bash', [BASE_SCRIPT], { cwd: ROOT, stdio: 'inherit' });
}

/** Package folders (node_modules/...) that only development needs, from the lock file. */
function devOnlyPackages(): Set<string> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return new Set(
    Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.dev === true)
      .map(([path]) => path),
  );
}

async function imageChecks(): Promise<void> {
  const sizeBytes = Number((await podman(['image', 'inspect', IMAGE, '--format', '{{.Size}}'])).out.trim());
  line(`image size: ${(sizeBytes / 1e6).toFixed(0)} MB (${sizeBytes} bytes)`);
  const user = (await podman(['image', 'inspect', IMAGE, '--format', '{{.Config.User}}'])).out.trim();
  const uid = (await podman(['run', '--rm', '--network=none', '--entrypoint', 'id', IMAGE, '-u'])).out.trim();
  check(user !== '' && user !== 'root' && uid !== '0', `image runs as a non-root user (${user}, uid ${uid})`);
  const tools = (
    await podman([
      'run',
      '--rm',
      '--network=none',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'for c in gcc cc g++ c++ clang make python3 as ld; do command -v $c; done; true',
    ])
  ).out.trim();
  check(tools === '', 'image holds no compiler or build tool (gcc, cc, g++, clang, make, python3, as, ld)', tools);
  const listed = (
    await podman([
      'run',
      '--rm',
      '--network=none',
      '--entrypoint',
      'node',
      IMAGE,
      '-e',
      "const fs=require('fs');const out=[];const walk=(d)=>{for(const n of fs.readdirSync(d)){if(n.startsWith('.'))continue;const p=d+'/'+n;if(n.startsWith('@')){walk(p);continue;}out.push(p.slice(5));if(fs.existsSync(p+'/node_modules'))walk(p+'/node_modules');}};walk('/app/node_modules');console.log(out.join('\\n'))",
    ])
  ).out
    .trim()
    .split('\n');
  const dev = devOnlyPackages();
  const present = listed.filter((p) => dev.has(p));
  check(
    present.length === 0,
    `image holds no development dependency (${listed.length} production packages; none of the ${dev.size} development-only ones)`,
    present.join(', '),
  );
  const sandboxNode = ['node_modules/hardhat', 'node_modules/@nomicfoundation/edr', 'node_modules/solc'].filter((p) =>
    listed.includes(p),
  );
  check(sandboxNode.length === 0, 'image holds no sandbox node (hardhat, EDR, solc)', sandboxNode.join(', '));
}

/** The configuration an operator would mount: explicit venue and chains, every secret from the environment. */
function writeConfig(dir: string, sandbox: Sandbox, metricsPort: number): { env: Record<string, string> } {
  const m = sandbox.manifest;
  const evmWallet = m.wallets.find((w) => w.chain === 'evm' && w.marketMaker);
  const wasmWallet = m.wallets.find((w) => w.chain === 'wasm' && w.marketMaker);
  if (evmWallet === undefined || wasmWallet === undefined)
    throw new CheckFailed('FAILED: the sandbox has no market-maker wallet on a chain');
  const channels = ('channelAccounts' in wasmWallet ? (wasmWallet.channelAccounts ?? []) : []).map((c) => c.secret);
  const env: Record<string, string> = {
    DLT_MM_API_KEY: m.venue.apiKey,
    DLT_MM_ACCESS_TOKEN: m.venue.accessToken,
    DLT_MM_EVM_KEY: evmWallet.key,
    DLT_MM_WASM_SEED: wasmWallet.key,
    ...Object.fromEntries(channels.map((seed, i) => [`DLT_MM_WASM_CHANNEL_${i + 1}`, seed])),
  };
  const config = {
    venue: {
      restUrl: m.venue.restUrl,
      wsUrl: m.venue.wsUrl,
      wsHost: m.venue.wsHost,
      dateHeader: m.venue.dateHeader,
      apiKey: { env: 'DLT_MM_API_KEY' },
      accessToken: { env: 'DLT_MM_ACCESS_TOKEN' },
      participantId: m.venue.participantId,
    },
    chains: {
      evm: { rpcUrl: m.chains.evm.rpcUrl, chainId: m.chains.evm.chainId, confirmations: 1 },
      wasm: { rpcUrl: m.chains.wasm.rpcUrl, networkPassphrase: m.chains.wasm.networkPassphrase },
    },
    wallets: [
      { id: 'evm-main', chain: 'evm', key: { env: 'DLT_MM_EVM_KEY' }, marketMaker: true },
      {
        id: 'wasm-main',
        chain: 'wasm',
        key: { env: 'DLT_MM_WASM_SEED' },
        marketMaker: true,
        channelAccounts: channels.map((_, i) => ({ env: `DLT_MM_WASM_CHANNEL_${i + 1}` })),
      },
    ],
    pairs: m.pairs.map((p) => ({
      blockChain: p.blockChain,
      base: p.baseSymbol,
      quote: p.quoteSymbol,
      wallet: p.chain === 'evm' ? 'evm-main' : 'wasm-main',
      strategy: '/app/strategies/ladder.yaml',
    })),
    calendar: { enabled: false },
    risk: SESSION_LIMITS,
    engine: { tickMs: 1000, phasePollMs: 1000, shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS },
    store: { path: '/app/state/dlt-mm.sqlite' },
    telemetry: { metricsPort, metricsHost: '127.0.0.1', logLevel: 'info' },
  };
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'bot.yaml'), stringify(config));
  check(
    !readFileSync(join(dir, 'config', 'bot.yaml'), 'utf8').includes(evmWallet.key),
    'the mounted configuration holds no secret (every one comes from the environment)',
  );
  return { env };
}

async function startContainer(
  name: string,
  dir: string,
  volume: string,
  metricsPort: number,
  env: Record<string, string>,
): Promise<{ readyMs: number }> {
  const started = performance.now();
  podman(
    [
      'run',
      '--detach',
      '--name',
      name,
      '--network=host',
      '--read-only',
      '--read-only-tmpfs=false',
      '--cap-drop=ALL',
      '--security-opt=no-new-privileges',
      '--volume',
      `${volume}:/app/state`,
      '--volume',
      `${join(dir, 'config')}:/etc/dlt-mm:ro`,
      ...Object.keys(env).flatMap((k) => ['--env', k]),
      IMAGE,
      'run',
      '--config',
      '/etc/dlt-mm/bot.yaml',
    ],
    { env: { ...process.env, ...env } },
  );
  await until(`${name} ready`, 120_000, async () => {
    const state = (await podman(['inspect', name, '--format', '{{.State.Status}}'])).out.trim();
    if (state !== 'running')
      throw new CheckFailed(
        `FAILED: container ${name} is ${state}\n${(await podman(['logs', '--tail', '40', name], { allowFail: true })).out}`,
      );
    const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => null);
    return res?.status === 200;
  }).catch(async (e: unknown) => {
    if (e instanceof CheckFailed) throw e;
    throw new CheckFailed(
      `FAILED: ${(e as Error).message}\n${(await podman(['logs', '--tail', '40', name], { allowFail: true })).out}`,
    );
  });
  return { readyMs: performance.now() - started };
}

async function stopContainer(name: string): Promise<{ stopMs: number; exitCode: number }> {
  const pid1 = (await podman(['exec', name, 'cat', '/proc/1/cmdline'])).out.replaceAll('\0', ' ').trim();
  check(pid1.startsWith('node src/cli/dlt-mm.ts run'), `the bot is the container's first process (${pid1})`);
  const started = performance.now();
  // What an orchestrator does: SIGTERM to the first process, SIGKILL only after the grace period.
  await podman(['stop', '--time', String(STOP_TIMEOUT_S), name]);
  const stopMs = performance.now() - started;
  const exitCode = Number((await podman(['inspect', name, '--format', '{{.State.ExitCode}}'])).out.trim());
  return { stopMs, exitCode };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  await ensurePodman();
  const built = performance.now();
  await podman([
    'build',
    '--pull=never',
    '--network=host',
    '--isolation=chroot',
    '--format',
    'docker',
    '-t',
    IMAGE,
    '.',
  ]);
  line(`image built in ${seconds(performance.now() - built)}`);
  await imageChecks();

  const dir = mkdtempSync(join(tmpdir(), 'dlt-mm-container-'));
  const volume = `${tag}-state`;
  const names = [`${tag}-1`, `${tag}-2`, `${tag}-3`];
  let sandbox: Sandbox | undefined;
  let chains: SandboxChains | undefined;
  try {
    sandbox = await startSandbox({
      ports: { api: 0, evm: 0, wasm: 0 },
      manifest: false,
      evm: { blockTimeMs: 1000 },
      wasm: { ledgerIntervalMs: 1000 },
    });
    chains = new SandboxChains(sandbox);
    await chains.begin();
    line(`sandbox on the host: ${sandbox.manifest.pairs.length} pairs, REST ${sandbox.manifest.venue.restUrl}`);
    const metricsPort = await freePort();
    const { env } = writeConfig(dir, sandbox, metricsPort);
    await podman(['volume', 'create', volume]);

    const first = await startContainer(names[0] as string, dir, volume, metricsPort, env);
    line(`time to ready (podman run to /readyz 200): ${seconds(first.readyMs)}`);
    const uid = (await podman(['exec', names[0] as string, 'id', '-u'])).out.trim();
    check(uid !== '0', `the running container's user is not root (uid ${uid})`);
    const write = (
      await podman(['exec', names[0] as string, 'sh', '-c', 'touch /app/probe 2>&1 || touch /tmp/probe 2>&1; true'])
    ).out;
    check(
      /Read-only file system/.test(write) && !existsSync('/app/probe'),
      'the root file system is read-only (/app and /tmp refuse writes)',
      write,
    );

    const resting = await until(
      'orders resting on both chains',
      90_000,
      async () => {
        await chains?.sync();
        const orders = (await chains?.restingEverywhere()) ?? [];
        const byChain = { evm: 0, wasm: 0 };
        for (const o of orders) byChain[chains?.pair(o.pairId).chain ?? 'evm'] += 1;
        return byChain.evm > 0 && byChain.wasm > 0 ? byChain : undefined;
      },
      1000,
    );
    check(true, `orders of ours rest on both chains: chain A ${resting.evm}, chain B ${resting.wasm}`);

    const stop = await stopContainer(names[0] as string);
    line(`stop (podman stop: SIGTERM, SIGKILL after ${STOP_TIMEOUT_S} s) took ${seconds(stop.stopMs)}`);
    check(
      stop.exitCode === 0,
      `the bot exited 0 after SIGTERM (exit code ${stop.exitCode})`,
      (await podman(['logs', '--tail', '40', names[0] as string], { allowFail: true })).out,
    );
    await chains.sync();
    const left = await chains.restingEverywhere();
    check(
      left.length === 0,
      'no order of ours is left resting on either chain',
      JSON.stringify(left, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    );
    const logged = await podman(['logs', names[0] as string]);
    const logs = logged.err + logged.out;
    check(
      !logs.includes(env.DLT_MM_EVM_KEY as string) && !logs.includes(env.DLT_MM_ACCESS_TOKEN as string),
      'no secret appears in the container log',
    );

    // A failover: a new container on the same volume (the state file and its claim), as a rescheduled pod.
    const second = await startContainer(names[1] as string, dir, volume, metricsPort, env);
    line(`restart to ready on the same state volume after a clean stop: ${seconds(second.readyMs)}`);
    await until(
      'orders resting again',
      90_000,
      async () => {
        await chains?.sync();
        return ((await chains?.restingEverywhere()) ?? []).length > 0;
      },
      1000,
    );
    // A crash: SIGKILL leaves the orders resting and the claim on the state file behind.
    await podman(['kill', '--signal', 'KILL', names[1] as string]);
    await podman(['wait', names[1] as string], { allowFail: true });
    await chains.sync();
    const orphaned = (await chains.restingEverywhere()).length;
    check(orphaned > 0, `a crash (SIGKILL) leaves ${orphaned} orders of ours resting`);
    const third = await startContainer(names[2] as string, dir, volume, metricsPort, env);
    line(
      `restart to ready on the same state volume after a crash (claim taken over, orders reconciled): ${seconds(third.readyMs)}`,
    );
    const last = await stopContainer(names[2] as string);
    check(last.exitCode === 0, `the bot restarted after the crash exited 0 after SIGTERM (${seconds(last.stopMs)})`);
    await chains.sync();
    check(
      (await chains.restingEverywhere()).length === 0,
      'no order of ours is left resting, those of the crashed process included',
    );
    line(`all checks passed in ${seconds(performance.now() - t0)}`);
  } finally {
    const keep = process.env.CONTAINER_TEST_LOGS;
    for (const n of names) {
      if (keep !== undefined) {
        const logged = await podman(['logs', n], { allowFail: true });
        writeFileSync(join(keep, `${n}.log`), logged.out + logged.err);
      }
      await podman(['rm', '--force', '--time', '0', n], { allowFail: true });
    }
    await podman(['volume', 'rm', '--force', volume], { allowFail: true });
    chains?.close();
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  async (e: unknown) => {
    console.error(e instanceof CheckFailed ? e.message : e);
    await sleep(10);
    process.exit(1);
  },
);
