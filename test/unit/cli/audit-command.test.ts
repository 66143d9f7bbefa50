/**
 * Parameter changes under control: every strategy version the bot accepts is recorded with its operator, its
 * hashes and each changed key, in a table chained by hash; `dlt-mm audit export` writes the day's rows and
 * reports a row tampered with after the fact.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/io.ts';
import { fileCliIo } from '../../support/cli-io.ts';
import { main } from '../../../src/cli/main.ts';
import { changedKeys } from '../../../src/core/config/changed-keys.ts';
import { StrategyCatalog, type AcceptedStrategy } from '../../../src/engine/loop/strategy-catalog.ts';
import { openStore } from '../../../src/store/store.ts';

let dir: string;
let out: string[];
let io: CliIo;

const LADDER = (spread: number) =>
  `kind: ladder\nreferencePrice: [mid]\nladder: {levels: 1, bidSpreadBps: ${spread}, askSpreadBps: 40, spacingBps: 10, sizeUnit: quote, sizes: ["100"]}\n`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-audit-cli-'));
  out = [];
  writeFileSync(join(dir, 'bot.yaml'), 'sandbox: { manifest: m.json }\nstore: { path: state.sqlite }\n');
  io = fileCliIo(dir, out);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A catalog recording into the state file as `dlt-mm run` does, the strategy loaded, then changed and reloaded. */
function acceptTwoVersions(): AcceptedStrategy[] {
  const accepted: AcceptedStrategy[] = [];
  const store = openStore(join(dir, 'state.sqlite'));
  const file = join(dir, 'ladder.yaml');
  writeFileSync(file, LADDER(20));
  const catalog = new StrategyCatalog(
    (p) => readFileSync(p, 'utf8'),
    (a) => {
      accepted.push(a);
      store.parameterChanges.record({
        ...a,
        atMs: Date.parse('2026-03-02T09:00:00Z') + accepted.length,
        operator: 'ops-anna',
      });
    },
  );
  catalog.load(file);
  writeFileSync(file, LADDER(25));
  expect(catalog.reload()).toEqual([]);
  catalog.reload();
  store.close();
  return accepted;
}

describe('parameter changes', () => {
  it('records each accepted version with the keys that changed, once per change', () => {
    const accepted = acceptTwoVersions();
    expect(accepted).toHaveLength(2);
    expect(accepted[1]?.oldHash).toBe(accepted[0]?.newHash);
    expect(accepted[1]?.changes).toEqual([{ key: 'ladder.bidSpreadBps', old: 20, new: 25 }]);
  });

  it('tells changed keys of nested lists and sections, a key on one side only too', () => {
    expect(changedKeys({ a: { b: [1, 2] }, c: 'x' }, { a: { b: [1, 3] }, d: true })).toEqual([
      { key: 'a.b[1]', old: 2, new: 3 },
      { key: 'c', old: 'x', new: null },
      { key: 'd', old: null, new: true },
    ]);
  });

  it('dlt-mm audit export writes the day as CSV and JSON lines, the chain verified', async () => {
    acceptTwoVersions();
    expect(await main(['audit', 'export', '--config', 'bot.yaml', '--day', '2026-03-02'], io)).toBe(0);
    expect(out.join('')).toContain('every one of 2 rows holds');
    const csv = readFileSync(join(dir, 'audit', 'dlt-mm-audit-2026-03-02-parameter-changes.csv'), 'utf8');
    expect(csv).toContain(',ops-anna,');
    expect(csv).toContain(',ladder.bidSpreadBps,20,25,');
    const rows = readFileSync(join(dir, 'audit', 'dlt-mm-audit-2026-03-02-parameter-changes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; operator: string });
    expect(rows.map((r) => [r.seq, r.operator])).toEqual([
      [1, 'ops-anna'],
      [2, 'ops-anna'],
    ]);
  });

  it("refuses edits, and the export reports a row changed behind the table's back", async () => {
    acceptTwoVersions();
    const store = openStore(join(dir, 'state.sqlite'));
    expect(() => store.db.prepare("UPDATE parameter_changes SET operator = 'mallory' WHERE seq = 1").run()).toThrow(
      /append-only/,
    );
    store.db.exec('DROP TRIGGER parameter_changes_no_update');
    store.db.prepare("UPDATE parameter_changes SET changes_json = '[]' WHERE seq = 2").run();
    store.close();
    expect(await main(['audit', 'export', '--config', 'bot.yaml', '--day', '2026-03-02'], io)).toBe(1);
    expect(out.join('')).toContain('hash chain broken at row 2: its contents were changed after it was written');
  });
});
