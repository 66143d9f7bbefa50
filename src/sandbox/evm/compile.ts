/**
 * Compiles the chain A venue contracts with the `solc` npm package (solc-js, bundled soljson: no compiler
 * download, works offline) through standard JSON. Artefacts are generated, never committed: they are cached
 * under `.sandbox/cache/` by a hash of the compiler version, the settings and every source, so a changed
 * source can never be served stale and repeated runs do not recompile.
 *
 * `node src/sandbox/evm/compile.ts` compiles (or loads) and prints every contract's size.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DltError } from '../../core/errors.ts';

export const CONTRACTS_DIR = fileURLToPath(new URL('./contracts/', import.meta.url));
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CACHE_DIR = join(PROJECT_ROOT, '.sandbox', 'cache');

/** The EIP-170 limit a node enforces on deployed code. */
export const CODE_SIZE_LIMIT = 24_576;

export const CONTRACT_NAMES = [
  'OrderBook',
  'RestrictedToken',
  'EMoneyToken',
  'ClientRegistry',
  'PriceAggregator',
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface Artifact {
  readonly abi: readonly Record<string, unknown>[];
  /** Creation code, 0x-prefixed. */
  readonly bytecode: string;
  /** Size of the deployed (runtime) code in bytes. */
  readonly deployedSize: number;
}

export interface Artifacts {
  readonly hash: string;
  readonly compiler: string;
  readonly contracts: Readonly<Record<ContractName, Artifact>>;
}

// The legacy optimizer keeps compilation of the whole set to seconds in solc-js; via-IR would take minutes.
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

interface Solc {
  version(): string;
  compile(input: string): string;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      { abi: Record<string, unknown>[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
}

/** Every Solidity source of the venue, by file name (the standard JSON `sources` object). */
export function readSources(): Record<string, { content: string }> {
  const names = readdirSync(CONTRACTS_DIR)
    .filter((f) => f.endsWith('.sol'))
    .toSorted();
  return Object.fromEntries(names.map((n) => [n, { content: readFileSync(join(CONTRACTS_DIR, n), 'utf8') }]));
}

/** The compiler's version string as bundled with the installed `solc` package (read without loading soljson). */
function solcPackageVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('solc/package.json') as { version: string }).version;
}

export function sourceHash(sources: Record<string, { content: string }> = readSources()): string {
  const h = createHash('sha256');
  h.update(`solc ${solcPackageVersion()}\n${JSON.stringify(SETTINGS)}\n`);
  for (const [name, { content }] of Object.entries(sources)) h.update(`${name}\n${content.length}\n${content}`);
  return h.digest('hex').slice(0, 24);
}

function cachePath(hash: string): string {
  return join(CACHE_DIR, `evm-artifacts-${hash}.json`);
}

function compileNow(sources: Record<string, { content: string }>, hash: string): Artifacts {
  const require = createRequire(import.meta.url);
  const solc = require('solc') as Solc;
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new DltError(
      'E_SANDBOX',
      `chain A contracts do not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`,
      {
        details: { part: 'evm-compile', errors: errors.map((e) => e.formattedMessage) },
      },
    );
  }
  const contracts = {} as Record<ContractName, Artifact>;
  for (const name of CONTRACT_NAMES) {
    const out = output.contracts?.[`${name}.sol`]?.[name];
    if (!out)
      throw new DltError('E_SANDBOX', `compiler output lacks ${name}`, {
        details: { part: 'evm-compile', contract: name },
      });
    contracts[name] = {
      abi: out.abi,
      bytecode: `0x${out.evm.bytecode.object}`,
      deployedSize: out.evm.deployedBytecode.object.length / 2,
    };
  }
  return { hash, compiler: solc.version(), contracts };
}

let memo: Artifacts | undefined;

/**
 * The compiled contracts for the current sources: from memory, else from the cache file, else compiled now
 * and written to the cache (atomically, so concurrent test processes never read half a file).
 */
export function loadArtifacts(): Artifacts {
  const sources = readSources();
  const hash = sourceHash(sources);
  if (memo?.hash === hash) return memo;
  const file = cachePath(hash);
  try {
    memo = JSON.parse(readFileSync(file, 'utf8')) as Artifacts;
    return memo;
  } catch {
    // not cached yet
  }
  const artifacts = compileNow(sources, hash);
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(artifacts));
  renameSync(tmp, file);
  // Artefacts of earlier sources are never read again; a process still wanting one would recompile.
  for (const old of readdirSync(CACHE_DIR).filter(
    (f) => /^evm-artifacts-[0-9a-f]+\.json$/.test(f) && join(CACHE_DIR, f) !== file,
  )) {
    rmSync(join(CACHE_DIR, old), { force: true });
  }
  memo = artifacts;
  return artifacts;
}

if (import.meta.main) {
  const t0 = performance.now();
  const a = loadArtifacts();
  console.log(`${a.compiler} (cache ${a.hash}) in ${Math.round(performance.now() - t0)} ms`);
  for (const name of CONTRACT_NAMES) {
    const size = a.contracts[name].deployedSize;
    console.log(
      `${name.padEnd(16)} ${String(size).padStart(6)} bytes${size > CODE_SIZE_LIMIT ? '  OVER THE 24 KiB LIMIT' : ''}`,
    );
  }
}
