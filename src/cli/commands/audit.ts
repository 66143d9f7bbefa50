/**
 * `dlt-mm audit export --config <file> [--day YYYY-MM-DD] [--out <dir>]`: the day's surveillance records. Its
 * order events with their UTC time to the microsecond, algorithm identifier, strategy hash and decision inputs,
 * and per pair the order-to-trade and cancel-to-fill ratios and the median quote lifetime (audit-orders.ts);
 * and its record of parameter changes (every strategy version the bot accepted: when, by which operator, the file, its old and new hash and
 * each changed key with its old and new value) as CSV and JSON lines, after walking the whole hash chain of the
 * record: a row edited, inserted or removed after the fact is reported, and the command exits 1. Reads the state
 * file only (read-only, safe while the bot runs); the day defaults to today on the venue's clock.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CALENDAR, toVenueLocal } from '../../core/calendar.ts';
import { DltError } from '../../core/errors.ts';
import { dayFrame, isDate } from '../../engine/obligations/day-frame.ts';
import type { StoredParameterChange } from '../../store/parameter-changes.ts';
import { openStoreReadOnly } from '../../store/store.ts';
import { usageArgs } from '../args.ts';
import { csvField, writeOrderRecords } from './audit-orders.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { EXIT_OK, EXIT_REFUSED, type CliIo } from '../io.ts';

export const AUDIT_USAGE = `  dlt-mm audit export --config <file> [--day YYYY-MM-DD] [--out <dir>]
                                      the day's order events (microsecond UTC times, algorithm ids,
                                      decision inputs), per-pair ratios and parameter changes as CSV
                                      and JSON lines, the parameter changes' hash chain verified`;

const COLUMNS = ['seq', 'time_utc', 'operator', 'file', 'old_hash', 'new_hash', 'key', 'old', 'new', 'row_hash'];

/** One CSV line per changed key (a version with no key changed: one line without a key). */
function csvLines(c: StoredParameterChange): string[] {
  const time = new Date(c.atMs).toISOString();
  const head = [c.seq, time, c.operator, c.file, c.oldHash, c.newHash];
  const keys = c.changes.length === 0 ? [{ key: '', old: '', new: '' }] : c.changes;
  return keys.map((k) => [...head, k.key, k.old, k.new, c.rowHash].map(csvField).join(','));
}

export async function auditCommand(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  const { values } = usageArgs(
    () =>
      parseArgs({
        args: rest,
        options: { config: { type: 'string' }, day: { type: 'string' }, out: { type: 'string' } },
        strict: true,
        allowPositionals: false,
      }),
    AUDIT_USAGE,
  );
  if (verb !== 'export') throw new DltError('E_USAGE', `audit: unknown verb ${String(verb)}\n${AUDIT_USAGE}`);
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${AUDIT_USAGE}`);
  const { configPath, statePath } = checkedSetup(values.config, io, { strategies: false, connection: false });
  const day = values.day ?? toVenueLocal(Date.now()).date;
  if (!isDate(day))
    throw new DltError('E_USAGE', `--day: ${JSON.stringify(day)} is not a date YYYY-MM-DD\n${AUDIT_USAGE}`);
  if (!existsSync(statePath))
    throw new DltError('E_USAGE', `no state file at ${statePath}: the bot has not run with this configuration`);
  const out = resolve(io.cwd, values.out ?? join(dirname(configPath), 'audit'));
  const store = openStoreReadOnly(statePath);
  try {
    const chain = store.parameterChanges.verify();
    const frame = dayFrame(day, { enabled: false, config: DEFAULT_CALENDAR });
    const changes = store.parameterChanges.between(frame.from, frame.to);
    mkdirSync(out, { recursive: true });
    const csv = join(out, `dlt-mm-audit-${day}-parameter-changes.csv`);
    const jsonl = join(out, `dlt-mm-audit-${day}-parameter-changes.jsonl`);
    writeFileSync(csv, [COLUMNS.join(','), ...changes.flatMap(csvLines)].join('\n') + '\n');
    writeFileSync(
      jsonl,
      changes.map((c) => JSON.stringify({ ...c, timeUtc: new Date(c.atMs).toISOString() })).join('\n') +
        (changes.length > 0 ? '\n' : ''),
    );
    const orders = writeOrderRecords(store, day, frame.from, frame.to, out);
    io.stdout(
      `order events ${orders.events.csv}\n  ${orders.events.jsonl}\n  ${orders.events.count} events on ${day}\n` +
        `pairs ${orders.pairs}\n`,
    );
    io.stdout(`parameter changes ${csv}\n  ${jsonl}\n  ${changes.length} of ${chain.rows} rows on ${day}\n`);
    if (chain.brokenAt === null) {
      io.stdout(`  hash chain: every one of ${chain.rows} rows holds\n`);
      return EXIT_OK;
    }
    io.stderr(`hash chain broken at row ${chain.brokenAt}: ${chain.reason}\n`);
    return EXIT_REFUSED;
  } finally {
    store.close();
  }
}
