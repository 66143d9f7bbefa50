/**
 * The bot's pino logger: one JSON object per line (or a short human line for a terminal), secrets redacted.
 * Redaction runs on the finished line (parsed back, redacted by key at any depth and in every string, then
 * written), because pino assembles messages, interpolations and child bindings after its formatters run
 * and applies no formatter to child bindings at all. The log formatter runs first only to turn errors,
 * bigints and cycles into plain JSON.
 */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { humanDestination } from './human-format.ts';
import { redactRecord, redactText } from './redact.ts';

export type { Logger } from 'pino';
export type LogLevel = LevelWithSilent;

export interface LoggerOptions {
  readonly level?: LogLevel;
  /** Logged as `name`; usually the bot instance name. */
  readonly name?: string;
  /** `json` (the default, for log collectors) or `human` (a short line per entry, for a terminal). */
  readonly format?: 'json' | 'human';
  /** Where lines go; default standard output. Anything with `write(line)`. */
  readonly destination?: DestinationStream;
  /** Clock for the `time` field (epoch milliseconds); tests pass a fixed one. */
  readonly now?: () => number;
  /**
   * Secret values the process holds (API key, access token...): any occurrence in a line is replaced, even
   * in free text no pattern recognises. Values shorter than 6 characters are ignored (too likely to match
   * ordinary text).
   */
  readonly knownSecrets?: readonly string[];
}

const MIN_KNOWN_SECRET_LENGTH = 6;

function lineRedactor(knownSecrets: readonly string[]): (line: string) => string {
  // A secret may sit in the line JSON-escaped; scrub both forms.
  const forms = [
    ...new Set(
      knownSecrets
        .filter((s) => s.length >= MIN_KNOWN_SECRET_LENGTH)
        .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]),
    ),
  ];
  const scrub = (text: string) => forms.reduce((t, secret) => t.replaceAll(secret, '***'), text);
  return (line) => {
    try {
      return `${scrub(JSON.stringify(redactRecord(JSON.parse(line) as Record<string, unknown>)))}\n`;
    } catch {
      return scrub(redactText(line));
    }
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const now = options.now ?? Date.now;
  const out = options.destination ?? process.stdout;
  const destination = options.format === 'human' ? humanDestination(out) : out;
  return pino(
    {
      level: options.level ?? 'info',
      base: options.name === undefined ? null : { name: options.name },
      timestamp: () => `,"time":"${new Date(now()).toISOString()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactRecord(object),
      },
      // Errors are already plain objects (see redactRecord); pino's serializer would rename their type.
      serializers: { err: (e: unknown) => e },
      hooks: { streamWrite: lineRedactor(options.knownSecrets ?? []) },
    },
    destination,
  );
}

/** A logger that drops everything; for code paths where the caller passed none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
