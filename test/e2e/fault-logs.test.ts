/**
 * What an operator reads during an incident: `dlt-mm run` as a child process on the sandbox while the test
 * injects, one after the other for 25 s each, the transport faults a real venue and its nodes show (REST 429,
 * 503 and 500 answers and slow replies, WebSocket drops and stalls, chain RPC errors, 503s and dropped
 * requests). Each kind of failure may say that it started and that it ended, nothing more, and an expected
 * transport error carries no stack trace.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/e2e/poll.ts';
import { SECOND_BLOCKS, sandboxSession, type SessionBot } from '../support/e2e/session.ts';

const FAULT_MS = 25_000;

const session = sandboxSession(
  'fault-logs',
  { ...SECOND_BLOCKS, flow: { enabled: true, informedShare: 0, takerIntervalMs: 5_000 } },
  { chains: { begin: false }, endSignal: 'SIGTERM' },
);
let bot: SessionBot;

interface LogLine {
  readonly level: string;
  readonly time: string;
  readonly msg: string;
  readonly err?: { readonly stack?: string };
  readonly [k: string]: unknown;
}

const logLines = (): LogLine[] =>
  readFileSync(bot.log, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

const call = async (path: string, body?: unknown, method = 'POST') => {
  const res = await fetch(`${session.sandbox.manifest.venue.controlUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<unknown>;
};

const quotingEverywhere = async () => {
  for (const p of session.sandbox.manifest.pairs) if ((await session.chains.resting(p.id)).length === 0) return false;
  return true;
};

beforeAll(async () => {
  bot = await session.startBot('bot', { risk: { staleMarketDataMs: 15_000 } });
  await until('bot ready and quoting every pair', 120_000, async () => {
    if (!bot.running) throw new Error(`the bot exited:\n${bot.tail()}`);
    return (await bot.readiness()).ready && (await quotingEverywhere());
  });
}, 180_000);

interface Fault {
  readonly name: string;
  readonly start: () => Promise<unknown>;
  /** Called every second while the fault lasts (a WebSocket drop is repeated). */
  readonly again?: () => Promise<unknown>;
}

const rest = (spec: Record<string, unknown>): Pick<Fault, 'start'> => ({
  start: () => call('/faults/rest', { rate: 0.5, ...spec }),
});
const rpc = (mode: string): Pick<Fault, 'start'> => ({
  start: async () => {
    await call('/faults/rpc', { chain: 'evm', mode, rate: 0.5 });
    await call('/faults/rpc', { chain: 'wasm', mode, rate: 0.5 });
  },
});

const FAULTS: Fault[] = [
  { name: 'REST 429', ...rest({ status: 429, retryAfterSeconds: 1 }) },
  { name: 'REST 503', ...rest({ status: 503 }) },
  { name: 'REST 500', ...rest({ status: 500 }) },
  { name: 'REST slow replies', ...rest({ delayMs: 4_000 }) },
  { name: 'WebSocket drops', start: () => call('/faults/ws/drop'), again: () => call('/faults/ws/drop') },
  { name: 'WebSocket stall', start: () => call('/faults/ws/stall', { ms: FAULT_MS }) },
  { name: 'chain RPC errors', ...rpc('error') },
  { name: 'chain RPC 503s', ...rpc('http-503') },
  { name: 'chain RPC dropped requests', ...rpc('drop') },
];

/** The incident kinds that said they started in `lines` and have not said they ended. */
const stillOpen = (lines: readonly LogLine[]) => {
  const open = new Set<string>();
  for (const l of lines)
    if (typeof l.incident === 'string' && l.msg === `${l.incident} failing`) open.add(l.incident);
    else if (typeof l.incident === 'string' && l.msg === `${l.incident} working again`) open.delete(l.incident);
  return [...open];
};

/** Lines at warning level or above and incidents' ends, counted by incident kind (else by message). */
const countByKind = (lines: readonly LogLine[]) => {
  const counts: Record<string, number> = {};
  for (const l of lines.filter((x) => x.level === 'warn' || x.level === 'error' || typeof x.incident === 'string')) {
    const key = typeof l.incident === 'string' ? l.incident : l.msg;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

describe('logs under transport faults', () => {
  const windows: { name: string; lines: LogLine[] }[] = [];

  beforeAll(async () => {
    for (const fault of FAULTS) {
      const from = logLines().length;
      const startedMs = Date.now();
      await fault.start();
      let lastAgain = startedMs;
      await until(
        `${fault.name} for ${FAULT_MS} ms`,
        FAULT_MS + 10_000,
        async () => {
          if (fault.again !== undefined && Date.now() - lastAgain >= 2_000) {
            lastAgain = Date.now();
            await fault.again();
          }
          return Date.now() - startedMs >= FAULT_MS;
        },
        200,
      );
      await call('/faults', undefined, 'DELETE');
      await until(`quoting again, every incident ended, after ${fault.name}`, 90_000, async () => {
        if (!bot.running) throw new Error(`the bot exited:\n${bot.tail()}`);
        return stillOpen(logLines().slice(from)).length === 0 && (await quotingEverywhere());
      });
      windows.push({ name: fault.name, lines: logLines().slice(from) });
    }
  }, 900_000);

  it('says each kind of failure at most twice: when it starts and when it ends', () => {
    // A failure carries the lines themselves: what each said, with its error code and context.
    const tooOften = windows.flatMap((w) =>
      Object.entries(countByKind(w.lines))
        .filter(([, n]) => n > 2)
        .map(([msg, n]) => {
          const shown = w.lines.filter((l) => l.msg === msg || l.incident === msg).map((l) => JSON.stringify(l));
          return `${w.name}: ${n} x ${msg}\n${shown.join('\n')}`;
        }),
    );
    expect(tooOften).toEqual([]);
    expect(windows.flatMap((w) => w.lines.filter((l) => l.level === 'error').map((l) => l.msg))).toEqual([]);
  });

  it('writes no stack trace for an expected transport error', () => {
    const stacks = windows.flatMap((w) =>
      w.lines.filter((l) => l.err?.stack !== undefined).map((l) => `${w.name}: ${JSON.stringify(l)}`),
    );
    expect(stacks).toEqual([]);
  });

  const said = (name: string, kind: string) => {
    const lines = windows.find((w) => w.name === name)?.lines.filter((l) => l.incident === kind) ?? [];
    return lines.map((l) => ({ msg: l.msg, counted: typeof l.failures === 'number' && l.failures > 0 }));
  };

  it('says when a failing venue API or chain node starts failing and when it works again, with the count', () => {
    expect(said('REST 503', 'venue REST')).toEqual([
      { msg: 'venue REST failing', counted: false },
      { msg: 'venue REST working again', counted: true },
    ]);
    for (const kind of ['chain A node', 'chain B node'])
      expect(said('chain RPC 503s', kind)).toEqual([
        { msg: `${kind} failing`, counted: false },
        { msg: `${kind} working again`, counted: true },
      ]);
  });
});
