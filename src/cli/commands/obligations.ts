/**
 * `dlt-mm obligations`: the operator's side of the market-making obligations. Exceptional circumstances (a
 * failed data feed, a technical problem the venue accepts) and stressed markets are declared with a reason and
 * kept in the state file; the measure leaves exceptional time out and allows the stressed spread multiplier.
 * While the bot runs, the command goes through its control endpoint (loopback, on the telemetry port), so the
 * bot's figures follow at once; when it does not, the state file is written directly.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DltError } from '../../core/errors.ts';
import { systemClock } from '../../core/system-clock.ts';
import { openStore, openStoreReadOnly } from '../../store/store.ts';
import type { ObligationWindow } from '../../store/obligation-store.ts';
import { dayFrame, isDate } from '../../engine/obligations/day-frame.ts';
import { toVenueLocal } from '../../core/calendar.ts';
import { DEFAULT_CALENDAR } from '../../core/calendar.ts';
import { EXIT_OK, type CliIo } from '../io.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { usageArgs } from '../args.ts';
import { botBaseUrl } from './bot-endpoint.ts';

export const OBLIGATIONS_USAGE = `  dlt-mm obligations declare --config <file> --reason <text> [--kind exception|stressed] [--pair <id>] [--from <time>] [--to <time>]
                                      declare exceptional circumstances (left out of the presence) or a stressed market
  dlt-mm obligations end --config <file> --id <n> [--at <time>]
                                      end a declared window (now by default)
  dlt-mm obligations list --config <file> [--day YYYY-MM-DD] [--json]
                                      the windows declared for a trading day
  Times are ISO 8601, e.g. 2026-03-02T10:15:00Z; --from defaults to now, --to to open-ended.`;

function time(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms))
    throw new DltError('E_USAGE', `${flag}: ${JSON.stringify(text)} is not an ISO 8601 time like 2026-03-02T10:15:00Z`);
  return ms;
}

/** The running bot's endpoint answer; null when nothing listens there (the bot is not running). */
async function viaEndpoint(
  url: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> } | null> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch (e) {
    const code = (e as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return null;
    throw new DltError('E_USAGE', `the bot's control endpoint ${url} did not answer: ${(e as Error).message}`);
  }
}

function show(window: ObligationWindow): string {
  const to = window.toMs === null ? 'open-ended' : new Date(window.toMs).toISOString();
  return `#${window.id} ${window.kind} ${window.pairId ?? 'all pairs'} from ${new Date(window.fromMs).toISOString()} to ${to}: ${window.reason} (${window.source})`;
}

function parseObligationArgs(rest: string[]) {
  return usageArgs(
    () =>
      parseArgs({
        args: rest,
        options: {
          config: { type: 'string' },
          reason: { type: 'string' },
          kind: { type: 'string' },
          pair: { type: 'string' },
          from: { type: 'string' },
          to: { type: 'string' },
          id: { type: 'string' },
          at: { type: 'string' },
          day: { type: 'string' },
          json: { type: 'boolean' },
        },
        strict: true,
      }),
    OBLIGATIONS_USAGE,
  ).values;
}

type ObligationValues = ReturnType<typeof parseObligationArgs>;

/** Where a verb acts: the running bot's endpoint (none when the telemetry port is 0) or the state file. */
interface Target {
  readonly values: ObligationValues;
  readonly statePath: string;
  readonly endpoint: string | null;
  readonly io: CliIo;
}

function refused(answer: { status: number; body: Record<string, unknown> }): DltError {
  return new DltError('E_USAGE', `the bot refused: ${String(answer.body.error ?? answer.status)}`);
}

async function declareWindow({ values, statePath, endpoint, io }: Target): Promise<number> {
  if (values.reason === undefined || values.reason.trim() === '')
    throw new DltError('E_USAGE', `--reason is required: the circumstances in words\n${OBLIGATIONS_USAGE}`);
  const kind = values.kind ?? 'exception';
  if (kind !== 'exception' && kind !== 'stressed')
    throw new DltError('E_USAGE', `--kind: exception or stressed\n${OBLIGATIONS_USAGE}`);
  const fromMs = time(values.from, '--from') ?? Date.now();
  const toMs = time(values.to, '--to') ?? null;
  if (toMs !== null && toMs <= fromMs) throw new DltError('E_USAGE', '--to must be after --from');
  const body = {
    kind,
    reason: values.reason.trim(),
    pair: values.pair ?? null,
    from: new Date(fromMs).toISOString(),
    ...(toMs === null ? {} : { to: new Date(toMs).toISOString() }),
  };
  const answer = endpoint === null ? null : await viaEndpoint(`${endpoint}/windows`, body);
  if (answer !== null) {
    if (answer.status !== 201) throw refused(answer);
    io.stdout(`declared through the running bot: ${show(answer.body as unknown as ObligationWindow)}\n`);
    return EXIT_OK;
  }
  const store = openStore(statePath, systemClock.now, { clock: systemClock });
  try {
    const known = store.obligations.pairs().map((pair) => pair.pairId);
    if (values.pair !== undefined && known.length > 0 && !known.includes(values.pair))
      throw new DltError('E_USAGE', `--pair: no pair ${values.pair} in the state file (${known.join(', ')})`);
    const window = store.obligations.declare({
      kind,
      pairId: values.pair ?? null,
      fromMs,
      toMs,
      reason: values.reason.trim(),
      source: 'command',
    });
    io.stdout(`declared in ${statePath}: ${show(window)}\n`);
  } finally {
    store.close();
  }
  return EXIT_OK;
}

async function endWindow({ values, statePath, endpoint, io }: Target): Promise<number> {
  const id = Number(values.id);
  if (!Number.isInteger(id) || id <= 0)
    throw new DltError('E_USAGE', `--id: the number of the window (dlt-mm obligations list)\n${OBLIGATIONS_USAGE}`);
  const atMs = time(values.at, '--at') ?? Date.now();
  const answer =
    endpoint === null ? null : await viaEndpoint(`${endpoint}/windows/${id}/end`, { at: new Date(atMs).toISOString() });
  if (answer !== null) {
    if (answer.status !== 200) throw refused(answer);
    io.stdout(`ended through the running bot: ${show(answer.body as unknown as ObligationWindow)}\n`);
    return EXIT_OK;
  }
  const store = openStore(statePath, systemClock.now, { clock: systemClock });
  try {
    const window = store.obligations.endWindow(id, atMs);
    if (window === null) throw new DltError('E_USAGE', `no window #${id} in ${statePath}`);
    io.stdout(`ended in ${statePath}: ${show(window)}\n`);
  } finally {
    store.close();
  }
  return EXIT_OK;
}

function listWindows({ values, statePath, io }: Target): number {
  const day = values.day ?? toVenueLocal(Date.now()).date;
  if (!isDate(day)) throw new DltError('E_USAGE', `--day: ${JSON.stringify(day)} is not a date YYYY-MM-DD`);
  if (!existsSync(statePath))
    throw new DltError('E_USAGE', `no state file at ${statePath}: the bot has not run with this configuration`);
  const frame = dayFrame(day, { enabled: false, config: DEFAULT_CALENDAR });
  const store = openStoreReadOnly(statePath);
  try {
    const windows = store.obligations.windows(frame.from, frame.to);
    if (values.json === true) io.stdout(`${JSON.stringify(windows, null, 2)}\n`);
    else io.stdout(windows.length === 0 ? `no windows declared for ${day}\n` : `${windows.map(show).join('\n')}\n`);
  } finally {
    store.close();
  }
  return EXIT_OK;
}

export async function obligationsCommand(args: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = args;
  const values = parseObligationArgs(rest);
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${OBLIGATIONS_USAGE}`);
  const { config, statePath } = checkedSetup(values.config, io, { strategies: false, connection: false });
  const endpoint = config.telemetry.metricsPort === 0 ? null : `${botBaseUrl(config)}/obligations`;
  const target: Target = { values, statePath, endpoint, io };
  if (verb === 'declare') return declareWindow(target);
  if (verb === 'end') return endWindow(target);
  if (verb === 'list') return listWindows(target);
  throw new DltError('E_USAGE', OBLIGATIONS_USAGE);
}
