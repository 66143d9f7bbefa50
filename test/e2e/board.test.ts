/**
 * The live board in a real terminal: `dlt-mm run` in a tmux session (180 x 40) against the sandbox with its
 * simulated market, read off the screen as a person would see it. Every pair's row shows our orders on both
 * sides (prices the bot really placed, per its store), fills, position and state; the wallets' fee balances;
 * the screen is redrawn in place (nothing scrolls) while the log goes to its file. A halt shows on the halted
 * pair's row and goes away on resumption; Ctrl-C leaves the last frame and the outcome line, and exits 0.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import { priceToRaw } from '../../src/core/units.ts';
import { openStoreReadOnly } from '../../src/store/store.ts';
import { SESSION_LIMITS } from '../support/e2e/bot-config.ts';
import { until } from '../support/e2e/poll.ts';
import { HALF_SECOND_BLOCKS, sandboxSession } from '../support/e2e/session.ts';
import { alive as processAlive } from '../support/processes.ts';
import { TmuxTerminal } from '../support/e2e/tmux-terminal.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));
/** `price x size`, as the board shows one of our orders. */
const LEVEL = /^(\d+(?:\.\d+)?) x (\d+(?:\.\d+)?)$/;

/** The time in the board's header line. */
const clock = (l: string | undefined) => /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/.exec(l ?? '')?.[0];

interface Row {
  readonly symbol: string;
  readonly chain: string;
  readonly bid: string;
  readonly ask: string;
  /** The fair value and its source; '-' for a strategy without one. */
  readonly fair: string;
  readonly spread: string;
  readonly position: string;
  readonly pnl: string;
  readonly presence: string;
  readonly fills: number;
  /** Our fills' markout at the board's horizon ('-' before any is valued). */
  readonly markout: string;
  readonly state: string;
}

/** Our spread as the obligation tracker measured it (from the chain) against the 1000 bp maximum. */
const SPREAD = /^\d+\.\dbp \/ 1000\.0bp$/;

/** Presence measured so far today against the 50 % target. */
const PRESENCE = /^\d+\.\d% \/ 50\.0%$/;

/** The board's row of `symbol` (its cells are separated by two spaces or more), if the screen has one. */
function rowOf(screen: readonly string[], symbol: string): Row | undefined {
  const line = screen.find((l) => l.startsWith(`${symbol} `));
  if (line === undefined) return undefined;
  const c = line.split(/ {2,}/);
  if (c.length < 12) return undefined;
  return {
    symbol: c[0]!,
    chain: c[1]!,
    bid: c[2]!,
    ask: c[3]!,
    fair: c[4]!,
    spread: c[5]!,
    position: c[6]!,
    pnl: c[7]!,
    presence: c[8]!,
    fills: Number(c[9]),
    markout: c[10]!,
    state: c.slice(11).join('  '),
  };
}

const session = sandboxSession(
  'board',
  { ...HALF_SECOND_BLOCKS, flow: { enabled: true, takerIntervalMs: 3_000 } },
  { keep: 'never' },
);
let term: TmuxTerminal;
const terms: TmuxTerminal[] = [];
let storePath: string;
let logFile: string;
let pairs: Array<{ id: string; symbol: string; chain: string }>;

const control = async (path: string): Promise<void> => {
  const res = await fetch(`${session.sandbox.manifest.venue.controlUrl}${path}`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST /sandbox${path}: ${res.status} ${await res.text()}`);
};
const screenText = () => term.screen().join('\n');
/** Fails at once, with the screen, if the bot has exited. */
const alive = () => {
  const status = term.exitStatus();
  if (status !== null) throw new Error(`dlt-mm run exited with ${status}:\n${screenText()}`);
};

beforeAll(async () => {
  const { dir } = session;
  pairs = session.sandbox.manifest.pairs.map((p) => ({ id: p.id, symbol: p.symbol, chain: p.chain }));
  storePath = join(dir, 'board.sqlite');
  logFile = join(dir, 'logs', 'board.log');
  // Obligations measured (not kept: the guard is off, so the quotes are the strategy's) on every pair, wide
  // enough for the ladder: the board's obligation columns show the tracker's figures.
  const obligations = { maxSpreadBps: 1000, minValue: '1', presenceTarget: 50, guard: false };
  const { config } = await session.writeConfig('board', { store: storePath, risk: SESSION_LIMITS, obligations });
  term = TmuxTerminal.start({
    dir,
    cwd: ROOT,
    argv: [NODE, 'src/cli/dlt-mm.ts', 'run', '--config', config, '--log-file', logFile],
    cols: 180,
    rows: 40,
  });
  terms.push(term);
}, 120_000);

afterAll(() => {
  // A test that failed midway leaves its bot running: nothing of ours may outlive the file.
  for (const t of terms) t.close();
});

describe('the live board in a terminal, on the sandbox', () => {
  it("shows every pair's row with our orders on both sides, and the wallets, redrawn in place while the bot trades", async () => {
    // Every pair quoted on both sides and active, and fills on both chains: the bot trades.
    const seen = await until(
      'every pair quoted on both sides on the board, with fills on both chains',
      120_000,
      () => {
        alive();
        const screen = term.screen();
        const rows = pairs.map((p) => rowOf(screen, p.symbol));
        if (
          !rows.every(
            (r) =>
              r !== undefined &&
              LEVEL.test(r.bid) &&
              LEVEL.test(r.ask) &&
              r.state === 'active' &&
              SPREAD.test(r.spread) &&
              PRESENCE.test(r.presence),
          )
        )
          return false;
        const filled = (chain: string) => rows.some((r) => r!.chain === chain && r!.fills > 0);
        return filled('evm') && filled('wasm') ? { screen, rows: rows as Row[] } : false;
      },
      200,
    ).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}\n${screenText()}`);
    });
    console.log(`the board, read off the terminal:\n${seen.screen.join('\n').trimEnd()}`);

    const store = openStoreReadOnly(storePath);
    try {
      for (const [i, p] of pairs.entries()) {
        const row = seen.rows[i]!;
        expect({ symbol: row.symbol, chain: row.chain }).toEqual({ symbol: p.symbol, chain: p.chain });
        const [, bidPrice] = LEVEL.exec(row.bid)!;
        const [, askPrice] = LEVEL.exec(row.ask)!;
        expect({ pair: p.symbol, bidBelowAsk: new Decimal(bidPrice!).lt(new Decimal(askPrice!)) }).toEqual({
          pair: p.symbol,
          bidBelowAsk: true,
        });
        // The prices shown are those of orders the bot placed on that side of that pair.
        const s = session.sandbox.state.pairByIdOrSymbol(p.id)!;
        const scales = derivePairRules(s.record, s.overrides).scales;
        for (const [side, price] of [
          ['buy', bidPrice!],
          ['sell', askPrice!],
        ] as const) {
          const placed = store.db
            .prepare('SELECT count(*) AS n FROM orders WHERE pair_id = ? AND side = ? AND price = ?')
            .get(p.id, side, priceToRaw(new Decimal(price), scales).toString()) as { n: number };
          expect({ pair: p.symbol, side, price, placedByUs: placed.n > 0 }).toEqual({
            pair: p.symbol,
            side,
            price,
            placedByUs: true,
          });
        }
        expect(row.position).toMatch(/^[+-]?\d+(\.\d+)?$/);
        expect(row.pnl).toMatch(/^[+-]?\d+\.\d\d$/);
        // The obligation columns: our spread against the configured maximum, today's presence against the target.
        expect(row.spread).toMatch(SPREAD);
        expect(row.fair).toBe('-');
        expect(row.presence).toMatch(PRESENCE);
        // The markout at the board's horizon, once a fill has been valued there.
        expect(row.markout).toMatch(/^(-|[+-]?\d+\.\dbp)$/);
      }
    } finally {
      store.close();
    }
    // One row per wallet (chain A and chain B) with its native fee balance read, and the transactions in flight.
    const wallets = seen.screen.filter((l) => /^(0x[0-9a-fA-F]{4}|G[A-Z2-7]{5})…/.test(l)).map((l) => l.split(/ {2,}/));
    expect(wallets.map((w) => w[1]).toSorted()).toEqual(['evm', 'wasm']);
    for (const w of wallets) {
      expect(new Decimal(w[2]!).gt(0)).toBe(true);
      expect(w[3]).toMatch(/^\d+$/);
    }

    // The screen is the board alone: the log goes to its file, and nothing scrolls.
    const header = seen.screen.find((l) => l.startsWith('dlt-mm trading'));
    expect(header).toContain(`log: ${logFile}`);
    expect(seen.screen.filter((l) => /txHash|"level"| INFO /.test(l))).toEqual([]);
    const logged = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(logged.some((l) => l.msg === 'chain A place sent')).toBe(true);
    expect(logged.some((l) => l.msg === 'transaction sent')).toBe(true);
    // Redrawn in place: the clock in the header moves on, and no line has scrolled into the history.
    await until('the header clock moves on', 10_000, () => {
      alive();
      const now = clock(term.screen().find((l) => l.startsWith('dlt-mm ')));
      return now !== undefined && now !== clock(header);
    });
    expect(term.historySize()).toBe(0);
  }, 180_000);

  it('a halted pair shows halted with the venue reason, and active again once trading resumes', async () => {
    const halted = pairs.find((p) => p.chain === 'wasm')!;
    await control(`/pairs/${halted.id}/halt`);
    const row = await until(`${halted.symbol} halted on the board`, 30_000, () => {
      alive();
      const r = rowOf(term.screen(), halted.symbol);
      return r !== undefined && r.state.startsWith('halted: ') ? r : false;
    });
    expect(row.state).toMatch(/^halted: [A-Z_]+$/);
    // Only that pair: the others are not halted.
    for (const p of pairs.filter((x) => x.id !== halted.id))
      expect(rowOf(term.screen(), p.symbol)?.state).not.toMatch(/^halted/);
    await control(`/pairs/${halted.id}/resume`);
    await until(`${halted.symbol} active again, quoting both sides`, 60_000, () => {
      alive();
      const r = rowOf(term.screen(), halted.symbol);
      return r !== undefined && r.state === 'active' && LEVEL.test(r.bid) && LEVEL.test(r.ask);
    });
  }, 120_000);

  it('Ctrl-C stops the bot: the last frame stays on the screen with the outcome below it, and the exit is 0', async () => {
    term.sendKeys('C-c');
    const status = await until('dlt-mm run exits', 90_000, () => term.exitStatus() ?? false);
    const screen = term.screen();
    expect(status).toBe(0);
    expect(screen.some((l) => l.startsWith('dlt-mm stopped'))).toBe(true);
    for (const p of pairs)
      expect(rowOf(screen, p.symbol)).toMatchObject({ bid: '-', ask: '-', state: 'stopped: shut down' });
    expect(screen).toContain('stopped; no order of ours is left on the book');
  }, 120_000);

  it('a terminal closed under the bot stops the board, not the bot: it trades on, logging to its file, until SIGTERM', async () => {
    const name = 'hangup';
    const log = join(session.dir, `${name}.log`);
    const { config } = await session.writeConfig(name, { risk: SESSION_LIMITS });
    const sub = join(session.dir, name);
    mkdirSync(sub);
    const t = TmuxTerminal.start({
      dir: sub,
      cwd: ROOT,
      argv: [NODE, 'src/cli/dlt-mm.ts', 'run', '--config', config, '--log-file', log],
      cols: 180,
      rows: 40,
    });
    terms.push(t);
    await until(
      'the second bot trading on its board',
      90_000,
      () => t.exitStatus() === null && t.screen().some((l) => l.startsWith('dlt-mm trading')),
    );
    t.hangUp();
    const lines = () =>
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { time: string; msg: string });
    const gone = await until('the bot notices the terminal is gone', 20_000, () =>
      lines().find((l) => l.msg.startsWith('the terminal is gone')),
    );
    // Still trading afterwards: transactions keep going out, logged to the file.
    await until('transactions sent after the terminal went', 30_000, () => {
      expect(processAlive(t.pid)).toBe(true);
      return lines().some((l) => l.time > gone.time && l.msg.endsWith('sent'));
    });
    process.kill(t.pid, 'SIGTERM');
    await until('the bot exits after SIGTERM', 90_000, () => !processAlive(t.pid));
    expect(lines().at(-1)?.msg).toBe('stopped; no order of ours is left on the book');
  }, 240_000);
});
