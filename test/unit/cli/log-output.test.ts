import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogFile, logPathBeside, teeLines } from '../../../src/cli/run/log-output.ts';
import { DltError } from '../../../src/core/errors.ts';

describe('log file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('appends, creates its directory, is readable by its owner only, and feeds every sink of a tee', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltmm-log-'));
    dirs.push(dir);
    const path = join(dir, 'state', 'bot.log');
    const first = new LogFile(path);
    first.write('{"a":1}\n');
    first.close();
    const again = new LogFile(path);
    const seen: string[] = [];
    teeLines([again, { write: (l) => void seen.push(l) }]).write('{"b":2}\n');
    again.close();
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
    expect(seen).toEqual(['{"b":2}\n']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a file that cannot be written is a clear error naming the option', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltmm-log-'));
    dirs.push(dir);
    let error: unknown;
    try {
      new LogFile(join(dir, 'missing', '\0bad')).close();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DltError);
    expect((error as DltError).code).toBe('E_USAGE');
    expect((error as DltError).message).toMatch(/cannot write the log file .*--log-file/);
  });

  it('lies beside the store by default', () => {
    expect(logPathBeside('/srv/mm/state/bot.sqlite')).toBe('/srv/mm/state/bot.log');
    expect(logPathBeside('/srv/mm/.sandbox/embedded-bot.sqlite')).toBe('/srv/mm/.sandbox/embedded-bot.log');
    expect(logPathBeside('/srv/mm/state/store')).toBe('/srv/mm/state/store.log');
  });
});
