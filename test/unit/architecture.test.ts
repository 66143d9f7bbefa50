import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] as string);
}

/** What Node loads with a module: static imports and re-exports, but not `import type` (erased) nor `import()`. */
/** What a file loads by static (not type-only) imports: the specifiers as written. */
function staticSpecifiers(file: string): string[] {
  return [
    ...readFileSync(file, 'utf8').matchAll(
      /^\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm,
    ),
  ].map((m) => (m[1] ?? m[2]) as string);
}

function loadedWith(file: string): string[] {
  return staticSpecifiers(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(file, '..', spec));
}

/** Which top-level folders of src/ each folder may import. */
const ALLOWED: Record<string, string[]> = {
  core: ['core'],
  strategy: ['core', 'strategy'],
  venue: ['core', 'telemetry', 'venue'],
  market: ['core', 'strategy', 'venue', 'chains', 'telemetry', 'market'],
  chains: ['core', 'telemetry', 'chains'],
  engine: ['core', 'strategy', 'venue', 'market', 'chains', 'store', 'engine', 'telemetry'],
  store: ['core', 'store'],
  telemetry: ['telemetry', 'core'],
  sandbox: ['core', 'sandbox'],
  backtest: ['core', 'strategy', 'venue', 'market', 'chains', 'engine', 'store', 'telemetry', 'sandbox', 'backtest'],
  cli: ['core', 'strategy', 'venue', 'market', 'chains', 'engine', 'store', 'telemetry', 'sandbox', 'backtest', 'cli'],
};
const CORE_PACKAGES = new Set(['decimal.js', 'zod', 'yaml']);

/** The longest a source file may be. */
const MAX_LINES = 300;
/** The wall clock, handed out by the composition root; everything else receives a `Clock`. */
const SYSTEM_CLOCK = 'core/system-clock.ts';

describe('architecture', () => {
  const files = tsFiles(join(root, 'src'));

  it('every module imports only the layers it may', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const layer = relative(join(root, 'src'), file).split('/')[0] as string;
      for (const spec of imports(file)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(join(root, 'src'), resolve(file, '..', spec)).split('/')[0] as string;
        if (!(ALLOWED[layer] ?? []).includes(target))
          wrong.push(`${relative(root, file)} imports ${spec} (${layer} -> ${target})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('relative imports name their .ts file, as Node type stripping needs', () => {
    const wrong = files.flatMap((f) =>
      imports(f)
        .filter((s) => s.startsWith('.') && !s.endsWith('.ts'))
        .map((s) => `${relative(root, f)}: ${s}`),
    );
    expect(wrong).toEqual([]);
  });

  it('the core does no I/O, reads no clock and draws no randomness', () => {
    const wrong: string[] = [];
    // The system clock is the one exception, and no other module of the core may use it.
    for (const file of files.filter(
      (f) => relative(join(root, 'src'), f).startsWith('core/') && relative(join(root, 'src'), f) !== SYSTEM_CLOCK,
    )) {
      if (imports(file).some((s) => s.endsWith('/system-clock.ts') || s === './system-clock.ts'))
        wrong.push(`${relative(root, file)} imports the system clock`);
      const text = readFileSync(file, 'utf8');
      for (const spec of imports(file)) {
        if (!spec.startsWith('.') && !CORE_PACKAGES.has(spec)) wrong.push(`${relative(root, file)} imports ${spec}`);
      }
      for (const pattern of [
        /Date\.now\(/,
        /new Date\(\)/,
        /Math\.random\(/,
        /\bprocess\.\w/,
        /setTimeout\(|setInterval\(/,
        /performance\.now\(/,
      ]) {
        if (pattern.test(text)) wrong.push(`${relative(root, file)} uses ${pattern.source}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('time has one interface: only the core declares a clock or a sleep', () => {
    const declares = /^\s*export\s+(?:interface|type)\s+(?:Clock|Sleep|Timer)\b/m;
    const wrong = files
      .filter((f) => relative(join(root, 'src'), f) !== 'core/clock.ts' && declares.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(wrong).toEqual([]);
  });

  it('nothing but the system clock sets a timer of its own in the bot', () => {
    // Timers and sleeps come from the injected clock, so that tests run them on a test clock.
    const layers = ['engine/', 'venue/'];
    const wrong = files
      .filter((f) => layers.some((l) => relative(join(root, 'src'), f).startsWith(l)))
      .filter((f) => /\bset(?:Timeout|Interval)\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(wrong).toEqual([]);
  });

  it('outside the wallet engine, code uses its face only: no part is built or reached, only its types are named', () => {
    const PARTS = [
      'orders/order-manager.ts',
      'orders/outcome-settler.ts',
      'tracking/tx-applier.ts',
      'tracking/event-tracker.ts',
      'recovery/reconciler.ts',
      'inventory/inventory-check.ts',
    ];
    const wrong: string[] = [];
    for (const file of files.filter((f) => !relative(join(root, 'src'), f).startsWith('engine/wallet/'))) {
      const text = readFileSync(file, 'utf8');
      if (/\b(?:WalletParts|assembleWallet)\b/.test(text))
        wrong.push(`${relative(root, file)} reaches the parts of a wallet engine`);
      for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm)) {
        const spec = m[2] as string;
        if (
          m[1] === undefined &&
          spec.includes('engine/wallet/') &&
          PARTS.some((part) => spec.endsWith(`wallet/${part}`))
        )
          wrong.push(`${relative(root, file)} imports the part ${spec}`);
        if (m[1] === undefined && spec.startsWith('../wallet/') && PARTS.some((part) => spec === `../wallet/${part}`))
          wrong.push(`${relative(root, file)} imports the part ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the top level holds the decided entries only (and dotfiles)', () => {
    // What the repository tracks; what a run leaves (node_modules, state files) is ignored by git.
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n');
    const top = new Set(tracked.filter((f) => f !== '').map((f) => f.split('/')[0] as string));
    const decided = ['package.json', 'package-lock.json', 'tsconfig.json', 'config', 'src', 'strategies', 'test'];
    expect([...top].filter((n) => !n.startsWith('.') && ![...decided, 'Dockerfile', 'README.md'].includes(n))).toEqual(
      [],
    );
  });

  it('src/engine holds folders only', () => {
    expect(
      readdirSync(join(root, 'src', 'engine')).filter(
        (name) => !statSync(join(root, 'src', 'engine', name)).isDirectory(),
      ),
    ).toEqual([]);
  });

  it('the wallet engine reaches the state file through its repositories: no SQL outside src/store', () => {
    const wrong = files
      .filter(
        (f) =>
          !relative(join(root, 'src'), f).startsWith('store/') &&
          !relative(join(root, 'src'), f).startsWith('sandbox/') &&
          !relative(join(root, 'src'), f).startsWith('cli/'),
      )
      .filter((f) => /\bdb\.prepare\(|\.db\b\s*\./.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(wrong).toEqual([]);
  });

  it('dlt-mm run against a real venue loads no sandbox code: the sandbox is reached only by dynamic imports', () => {
    const seen = new Set<string>();
    // The entry point loads the commands (main.ts) by import() after enabling the compile cache.
    const queue = [join(root, 'src', 'cli', 'dlt-mm.ts'), join(root, 'src', 'cli', 'main.ts')];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      queue.push(...loadedWith(file));
    }
    expect(seen.size).toBeGreaterThan(50);
    expect([...seen].map((f) => relative(join(root, 'src'), f)).filter((f) => f.startsWith('sandbox/'))).toEqual([]);
    // Nor the report's charting libraries: they load only for dlt-mm report (a restart should not wait for them).
    const packages = new Set([...seen].flatMap((f) => staticSpecifiers(f).filter((spec) => !spec.startsWith('.'))));
    expect(['vega', 'vega-lite'].filter((p) => packages.has(p))).toEqual([]);
    expect(packages.has('ethers')).toBe(true);
  });

  it(`a source file is at most ${MAX_LINES} lines`, () => {
    const wrong: string[] = [];
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split('\n').length - 1;
      if (lines > MAX_LINES)
        wrong.push(
          `${relative(join(root, 'src'), file)}: ${lines} lines (at most ${MAX_LINES}; split it along its concerns)`,
        );
    }
    expect(wrong).toEqual([]);
  });
});
