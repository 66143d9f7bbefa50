/**
 * Functions that fit on a screen: no function in src/ runs over 80 lines. The length is oxlint's
 * `max-lines-per-function` with the options `.oxlintrc.json` gives it (so `npm run lint` and this test count
 * alike): every line from the one a function starts on to the one it ends on, blank lines and comments
 * included; a nested function counts in its own length and in its parent's; an IIFE counts only in its
 * parent's. The functions that were longer when the limit came are listed below with their lengths then;
 * each may only shrink, is split into named helpers when it is next changed, and leaves the list once it is
 * within the limit (the test says when). Lint leaves the files holding them to this test, which checks them
 * function by function.
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

/**
 * `file (under src/): function` and its length: a method by its own name, a function without a name as
 * `(anonymous)`. Several long functions of one file under one name each keep within the number.
 */
const LONGER_FUNCTIONS_FOR_NOW: Readonly<Record<string, number>> = {
  'backtest/replay.ts: runBacktest': 169,
  'chains/evm/log-decoder.ts: decodeLog': 83,
  'chains/wasm/event-decoder.ts: bookEvent': 93,
  'chains/wasm/sender.ts: sendInvocation': 173,
  'cli/backtest/compose.ts: runOne': 141,
  'cli/bootstrap/run.ts: composeRun': 225,

  'cli/commands/cancel-all.ts: cancelAllCommand': 81,
  'cli/commands/inventory.ts: inventoryCommand': 110,
  'cli/commands/obligations.ts: obligationsCommand': 112,
  'cli/commands/order.ts: encode': 87,
  'cli/commands/record.ts: recordCommand': 99,
  'cli/commands/run.ts: runCommand': 153,
  'cli/report/data.ts: pairDay': 98,
  'cli/report/evaluation.ts: evaluationDay': 116,
  'cli/report/report-csv.ts: reportCsv': 140,
  'sandbox/api/http-server.ts: startApiServer': 94,
  'sandbox/api/market.ts: apply': 87,
  'sandbox/evm/node.ts: startOn': 95,
  'sandbox/evm/venue.ts: (anonymous)': 112,
  'sandbox/evm/venue.ts: deployVenue': 127,
  'sandbox/matching/engine.ts: submitOrder': 143,
  'sandbox/venue/api-setup.ts: startVenueApi': 96,
  'sandbox/venue/control-routes.ts: (anonymous)': 101,
  'sandbox/venue/control-routes.ts: controlHandler': 103,
  'sandbox/venue/control-routes.ts: faults': 82,
  'sandbox/venue/deploy.ts: deploySandbox': 101,
  'sandbox/venue/rpc-proxy.ts: startRpcProxy': 95,
  'sandbox/wasm/apply.ts: applyTransaction': 111,
  'sandbox/wasm/contracts/order-book.ts: call': 86,
  'sandbox/wasm/contracts/token.ts: call': 83,
  'store/recording-read.ts: readRecordings': 88,
  'store/writer-claim.ts: claimWriter': 89,
  'strategy/obligation-guard.ts: guardQuotes': 100,
  'strategy/registry.ts: computeQuotes': 109,
  'strategy/sequence.ts: sequenceActions': 90,
  'telemetry/venue-metrics.ts: createVenueMetrics': 129,
};

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

/** `file: function` of every function in src/ longer than the limit, with its length (the longest per key). */
function longFunctions(): Map<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'dlt-mm-function-length-'));
  try {
    // The project's rule and options alone, without the files lint leaves to this test.
    const config = join(dir, 'oxlintrc.json');
    writeFileSync(config, JSON.stringify({ plugins: [], categories: {}, rules: { [RULE]: lintConfig.rules[RULE] } }));
    const run = spawnSync(
      process.execPath,
      [join(root, 'node_modules/oxlint/bin/oxlint'), '-c', config, '--format', 'json', 'src'],
      { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.status !== 0 && run.status !== 1) throw new Error(`oxlint exited with ${run.status}: ${run.stderr}`);
    const found = new Map<string, number>();
    for (const d of (JSON.parse(run.stdout) as { diagnostics: Diagnostic[] }).diagnostics) {
      const m = /^The .*?(?: `([^`]+)`)? has too many lines \((\d+)\)/.exec(d.message);
      if (d.code !== `eslint(${RULE})` || m === null) throw new Error(`unexpected diagnostic: ${JSON.stringify(d)}`);
      const key = `${d.filename.replace(/^src\//, '')}: ${m[1] ?? '(anonymous)'}`;
      found.set(key, Math.max(found.get(key) ?? 0, Number(m[2])));
    }
    return found;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fileOf(key: string): string {
  return `src/${key.slice(0, key.indexOf(': '))}`;
}

describe('function length', () => {
  it(`lint measures functions of at most ${MAX_LINES} lines, counting every line`, () => {
    expect(lintConfig.rules[RULE]).toEqual(['error', { max: MAX_LINES }]);
  });

  it(`a function in src/ is at most ${MAX_LINES} lines; the longer ones of before only shrink`, () => {
    const found = longFunctions();
    const wrong: string[] = [];
    for (const [key, lines] of found) {
      const allowed = LONGER_FUNCTIONS_FOR_NOW[key];
      if (allowed === undefined)
        wrong.push(`${key}: ${lines} lines (at most ${MAX_LINES}; split it into named helpers)`);
      else if (lines > allowed) wrong.push(`${key}: ${lines} lines, more than the ${allowed} it may have`);
      else if (lines < allowed)
        wrong.push(`${key}: ${lines} lines, shorter than its ${allowed}: lower its number in LONGER_FUNCTIONS_FOR_NOW`);
    }
    for (const key of Object.keys(LONGER_FUNCTIONS_FOR_NOW))
      if (!found.has(key)) wrong.push(`${key}: within the limit now (or gone): take it off LONGER_FUNCTIONS_FOR_NOW`);
    expect(wrong).toEqual([]);
  });

  it('lint leaves to this test exactly the files holding a listed function, and the tests', () => {
    const off = (lintConfig.overrides ?? [])
      .filter((o) => o.rules[RULE] === 'off')
      .flatMap((o) => o.files)
      .toSorted();
    const listed = [...new Set(Object.keys(LONGER_FUNCTIONS_FOR_NOW).map(fileOf)), 'test/**'].toSorted();
    expect(off).toEqual(listed);
  });
});
