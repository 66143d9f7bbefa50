/**
 * A tiny human formatter for terminals (pino-pretty is not a dependency): `HH:MM:SS.mmm LEVEL msg k=v ...`.
 * It reformats the JSON line pino already produced, so redaction has happened before it runs.
 */
import type { DestinationStream } from 'pino';

const LEVEL_WIDTH = 5;
const KEYS_SHOWN_FIRST = new Set(['time', 'level', 'msg', 'name']);

function valueText(value: unknown): string {
  if (typeof value === 'string') return /[\s="]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** One JSON log line as a human line; a line that is not JSON is returned unchanged. */
export function formatHumanLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const level = String(entry.level ?? '')
    .toUpperCase()
    .padEnd(LEVEL_WIDTH);
  const name = typeof entry.name === 'string' ? `${entry.name}: ` : '';
  const fields = Object.entries(entry)
    .filter(([k]) => !KEYS_SHOWN_FIRST.has(k))
    .map(([k, v]) => `${k}=${valueText(v)}`);
  return `${[time, level, `${name}${String(entry.msg ?? '')}`, ...fields].filter((s) => s !== '').join(' ')}\n`;
}

export function humanDestination(out: DestinationStream): DestinationStream {
  return { write: (line: string) => out.write(formatHumanLine(line)) };
}
