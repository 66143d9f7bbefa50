/**
 * Functions that fit on a screen: no function in src/ runs over 80 lines. The length is oxlint's
 * `max-lines-per-function` with the options `.oxlintrc.json` gives it, so `npm run lint` enforces it: every line
 * from the one a function starts on to the one it ends on, blank lines and comments included; a nested function
 * counts in its own length and in its parent's; an IIFE counts only in its parent's. Tests are exempt (a test
 * reads best as one story). This test keeps the rule as it is and runs it over src/ alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RULE = 'max-lines-per-function';
const MAX_LINES = 80;

interface LintConfig {
  readonly rules: Readonly<Record<string, unknown>>;
  readonly overrides?: readonly { readonly files: readonly string[]; readonly rules: Record<string, unknown> }[];
}

interface Diagnostic {
  readonly message: string;
  readonly code: string;
  readonly filename: string;
}

const lintConfig = JSON.parse(readFileSync(join(root, '.oxlintrc.json'), 'utf8')) as LintConfig;

/** `file: function (lines)` of every function in src/ longer than the limit. */
function longFunctions(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'dlt-mm-function-length-'));
  try {
    // The project's rule and options alone.
    const config = join(dir, 'oxlintrc.json');
    writeFileSync(config, JSON.stringify({ plugins: [], categories: {}, rules: { [RULE]: lintConfig.rules[RULE] } }));
    const run = spawnSync(
      process.execPath,
      [join(root, 'node_modules/oxlint/bin/oxlint'), '-c', config, '--format', 'json', 'src'],
      { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.status !== 0 && run.status !== 1) throw new Error(`oxlint exited with ${run.status}: ${run.stderr}`);
    return (JSON.parse(run.stdout) as { diagnostics: Diagnostic[] }).diagnostics.map((d) => {
      const m = /^The .*?(?: `([^`]+)`)? has too many lines \((\d+)\)/.exec(d.message);
      if (d.code !== `eslint(${RULE})` || m === null) throw new Error(`unexpected diagnostic: ${JSON.stringify(d)}`);
      return `${d.filename.replace(/^src\//, '')}: ${m[1] ?? '(anonymous)'} (${m[2]} lines)`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('function length', () => {
  it(`lint measures functions of at most ${MAX_LINES} lines, counting every line, and exempts only the tests`, () => {
    expect(lintConfig.rules[RULE]).toEqual(['error', { max: MAX_LINES }]);
    const off = (lintConfig.overrides ?? []).filter((o) => o.rules[RULE] === 'off').flatMap((o) => o.files);
    expect(off).toEqual(['test/**']);
  });

  it(`no function in src/ is over ${MAX_LINES} lines`, () => {
    expect(longFunctions()).toEqual([]);
  });
});
