/**
 * Backtest against live, on a short sandbox session: the real `dlt-mm run` trades with recording on, stops
 * (SIGTERM), and `dlt-mm backtest` replays the recording with the same configuration. The replay is the bot
 * itself on the recorded inputs, so where the inputs are the same its decisions are the same: every pair's
 * first ladder (side, level, price, size) is the live bot's. The backtest stops quoting where the live bot
 * began to shut down, both sides traded, and the backtest's report is marked as one, with the PnL attribution
 * exact to the last unit. (The figures of a 30-minute session: `npm run parity`, in src/backtest/README.md.)
 */
import { DatabaseSync } from 'node:sqlite';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { parity, type ParityOutcome } from '../support/e2e/parity.ts';
import { main } from '../../src/cli/main.ts';
import { withReportPage } from '../support/e2e/chromium.ts';
import { processIo } from '../../src/cli/process-io.ts';

let p: ParityOutcome;

// A session that would run past the venue's midnight waits for it first (up to three minutes).
beforeAll(async () => {
  p = await parity({ seconds: 60, seed: 3, blockMs: 1_000, takerIntervalMs: 2_000, say: () => undefined });
}, 480_000);

/**
 * Each pair's first ladder as side:level:price:quantity: the orders of its first round, which all carry that
 * round's decision (the same market snapshot). A ladder level whose price rounds onto another's is left out
 * of the round, so a round may hold fewer than six orders; what the next round places depends on when the
 * first round's outcomes came back, which the replay's latency model draws rather than replays.
 */
function firstLadders(path: string): Map<string, string[]> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db
      .prepare(
        `SELECT o.pair_id, o.side, o.level, o.price, o.quantity FROM orders o JOIN decisions d ON d.id = o.decision_id
         WHERE d.market_json = (SELECT f.market_json FROM decisions f WHERE f.pair_id = o.pair_id ORDER BY f.id LIMIT 1)`,
      )
      .all() as Array<Record<string, string | number>>;
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const list = out.get(r.pair_id as string) ?? [];
      list.push(`${r.side}:${r.level}:${r.price}:${r.quantity}`);
      out.set(r.pair_id as string, list);
    }
    for (const [k, list] of out) out.set(k, list.toSorted());
    return out;
  } finally {
    db.close();
  }
}

describe('dlt-mm backtest of a live session', () => {
  it("quotes every pair's first ladder exactly as the live bot did", () => {
    const live = firstLadders(p.liveStore);
    const backtest = firstLadders(p.backtestStore);
    expect(live.size).toBe(4);
    for (const [pair, list] of live)
      expect({ pair, sides: new Set(list.map((o) => o.split(':')[0])).size }).toEqual({ pair, sides: 2 });
    expect(Object.fromEntries(backtest)).toEqual(Object.fromEntries(live));
  });

  it('trades on both sides, stops where the live bot shut down, and says it is a backtest', () => {
    expect(p.live.fills).toBeGreaterThan(0);
    expect(p.backtest.fills).toBeGreaterThan(0);
    const mark = p.backtestReport.backtest;
    expect(mark?.replayed.evm?.orders).toBeGreaterThan(0);
    const shutdown = new DatabaseSync(p.recordings[0] as string, { readOnly: true });
    try {
      const row = shutdown.prepare("SELECT min(recv_ms) AS ms FROM actions WHERE type = 'shutdown'").get() as {
        ms: number;
      };
      expect(mark?.toMs).toBe(row.ms);
    } finally {
      shutdown.close();
    }
    const html = readFileSync(join(p.dir, 'backtest', 'backtest.html'), 'utf8');
    expect(html).toContain('<h1>Backtest of');
  });

  it('a sweep runs each combination on worker threads, each quoting with its own parameters, ranked in one table', async () => {
    let out = '';
    const io = { ...processIo(process.env, p.dir), stdout: (t: string) => void (out += t) };
    const grid = ['--grid', 'ladder.bidSpreadBps=10,60'];
    const code = await main(
      ['backtest', '--config', 'bot.yaml', '--data', ...p.recordings, '--out', 'sweep', ...grid],
      io,
    );
    expect({ code, out }).toMatchObject({ code: 0 });
    const lines = out.split('\n').filter((l) => /^\d+ /.test(l));
    expect(lines.map((l) => l.split(/\s+/)[1]).toSorted()).toEqual([
      'ladder.bidSpreadBps=10',
      'ladder.bidSpreadBps=60',
    ]);
    // Each pair's first bid (level 0) of each run: 60 bp below the reference sits lower than 10 bp below it.
    const firstBids = (bps: number) => {
      const path = join(p.dir, 'sweep', `ladder.bidSpreadBps=${bps}`, 'backtest-state.sqlite');
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        const rows = db
          .prepare(
            "SELECT pair_id, price FROM orders WHERE side = 'buy' AND level = 0 ORDER BY created_ms, client_order_id",
          )
          .all() as Array<{ pair_id: string; price: string }>;
        const first = new Map<string, bigint>();
        for (const r of rows) if (!first.has(r.pair_id)) first.set(r.pair_id, BigInt(r.price));
        return first;
      } finally {
        db.close();
      }
    };
    const narrow = firstBids(10);
    const wide = firstBids(60);
    expect(narrow.size).toBe(4);
    for (const [pair, price] of narrow)
      expect({ pair, lower: (wide.get(pair) ?? price) < price }).toEqual({ pair, lower: true });
  });

  it('its report opens in headless Chromium with every chart drawn, the markout curves among them', async () => {
    const html = join(p.dir, 'backtest', 'backtest.html');
    await withReportPage(html, async ({ charts, problems, requests }) => {
      expect(charts.some((c) => c.id?.startsWith('markout-'))).toBe(true);
      for (const c of charts)
        expect({ id: c.id, drawn: c.width > 100 && c.height > 50 && c.marks > 10 }).toEqual({ id: c.id, drawn: true });
      expect(problems).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    });
  }, 60_000);

  it('attributes the PnL exactly: total = spread capture + inventory - commissions - chain fees', () => {
    for (const pair of p.backtestReport.pairs) {
      const a = pair.evaluation.attribution;
      const sum = new Decimal(a.spreadCapture).plus(a.inventory).minus(a.commissions).minus(a.chainFees);
      expect({ pair: pair.symbol, total: sum.toFixed() }).toEqual({
        pair: pair.symbol,
        total: new Decimal(a.total).toFixed(),
      });
    }
  });
});
