/**
 * Where `dlt-mm run` writes its log. On a terminal the screen belongs to the board, so the log goes to a file
 * (beside the store unless `--log-file` says otherwise); off a terminal it goes to standard output as JSON
 * lines, as a log collector expects, and to a file too when `--log-file` is given. Every line is the logger's
 * finished JSON (redacted before it gets here).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { DltError } from '../../core/errors.ts';

export interface LineSink {
  write(line: string): void;
}

/** A log file opened for appending (created readable by its owner only); writes are synchronous. */
export class LogFile implements LineSink {
  readonly path: string;
  #fd: number | null;

  constructor(path: string) {
    this.path = path;
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.#fd = openSync(path, 'a', 0o600);
    } catch (e) {
      throw new DltError(
        'E_USAGE',
        `cannot write the log file ${path}: ${(e as Error).message}; choose another with --log-file`,
        { cause: e },
      );
    }
  }

  write(line: string): void {
    if (this.#fd !== null) writeSync(this.#fd, line);
  }

  close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }
}

/** One destination that writes every line to each sink in turn. */
export function teeLines(sinks: readonly LineSink[]): LineSink {
  return {
    write: (line) => {
      for (const s of sinks) s.write(line);
    },
  };
}

/** The default log file: beside the store, with its name and `.log` (`state/bot.sqlite` -> `state/bot.log`). */
export function logPathBeside(storePath: string): string {
  return storePath.replace(/\.(sqlite3?|db)$/i, '') + '.log';
}
