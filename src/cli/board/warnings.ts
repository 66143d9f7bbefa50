/**
 * The last warnings and errors of the log, for the board: a log destination that keeps the newest few
 * `warn`, `error` and `fatal` lines in the terminal's short form. It receives the finished JSON lines (after
 * redaction), so nothing secret reaches the screen that the log file would not hold either.
 */
import { formatHumanLine } from '../../telemetry/human-format.ts';
import type { WarningLine } from './model.ts';

const LEVELS = new Set(['warn', 'error', 'fatal']);

export class RecentWarnings {
  readonly #capacity: number;
  readonly #lines: WarningLine[] = [];
  #count = 0;

  constructor(capacity = 5) {
    this.#capacity = capacity;
  }

  /** One log line (pino's JSON); anything else is ignored. */
  write(line: string): void {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const level = entry.level;
    if (typeof level !== 'string' || !LEVELS.has(level)) return;
    this.#count += 1;
    // The instance name is the same on every line: the board leaves it out.
    delete entry.name;
    this.#lines.push({ level: level as WarningLine['level'], text: formatHumanLine(JSON.stringify(entry)).trimEnd() });
    if (this.#lines.length > this.#capacity) this.#lines.shift();
  }

  /** Oldest first. */
  get lines(): readonly WarningLine[] {
    return [...this.#lines];
  }

  /** Every warning and error seen, kept or not. */
  get count(): number {
    return this.#count;
  }
}
