import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { toVenueLocal } from '../../../../src/core/calendar.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { quantityFromRaw } from '../../../../src/core/units.ts';
import { DltError } from '../../../../src/core/errors.ts';
import { Bot } from '../../../../src/engine/loop/bot.ts';
import { StrategyCatalog } from '../../../../src/engine/loop/strategy-catalog.ts';
import { resolveLimits } from '../../../../src/engine/risk/limits.ts';
import type { MarketBook } from '../../../../src/venue/market-data/book.ts';
import {
  harness,
  logSink,
  TAKER,
  WALLET,
  withClock,
  type Harness,
  type HarnessOptions,
} from '../../../support/engine/harness.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import { whenTrue } from '../../../support/condition.ts';

const d = (s: string) => new Decimal(s);
const ladder = fileURLToPath(new URL('../../../../strategies/ladder.yaml', import.meta.url));

/** The feed as the bot uses it: books by symbol, and the events that trigger the loops. */
class FakeFeed extends EventEmitter {
  readonly books = new Map<string, MarketBook>();
  book(symbol: string): MarketBook | undefined {
    return this.books.get(symbol);
  }
  add(): void {}
  publish(book: MarketBook): void {
    this.books.set(book.symbol, book);
    this.emit('book', book);
  }
}

let open: Harness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) h.store.close();
});

interface Running {
  readonly h: Harness;
  readonly bot: Bot;
  readonly feed: FakeFeed;
  /** What the bot logged. */
  readonly logs: Array<Record<string, unknown>>;
  /** How often the venue's trade information was read. */
  readonly tradeInfoReads: { count: number };
}

async function running(options: HarnessOptions = {}): Promise<Running> {
  const h = await harness(options);
  open.push(h);
  const { logs, sink } = logSink();
  const feed = new FakeFeed();
  const tradeInfoReads = { count: 0 };
  const catalog = new StrategyCatalog((p) => readFileSync(p, 'utf8'));
  const bot = new Bot({
    wallets: [{ id: 'w', engine: h.engine, adapter: h.adapter, marketMaker: false }],
    pairs: [
      {
        binding: h.pair,
        walletId: 'w',
        strategy: () => catalog.get(ladder),
        limits: () => resolveLimits({ dailyLossLimit: '1', staleMarketDataMs: 600_000 }),
        refreshCost: d('0'),
      },
    ],
    feed: feed as never,
    rest: {
      getTradeInfo: async () => {
        tradeInfoReads.count++;
        return { raw: {}, tradingStatus: 'CONTINUOUS_TRADING', lastPrice: d('100'), referencePrice: d('100') };
      },
    },
    calendar: { enabled: false, config: { holidays: [], open: '08:00', close: '17:00', clearingDelayMinutes: 5 } },
    // The bot's timers run on the test clock: they fire only as the test moves it.
    timings: {
      tickMs: 1_000,
      tradeInfoPollMs: 5_000,
      phasePollMs: 5_000,
      balanceMaxAgeMs: 0,
      inventoryCheckMs: 60_000,
    },
    clock: h.clock,
    logger: pino({ level: 'info' }, sink),
    metrics: h.metrics,
    reloadStrategies: () => [],
  });
  await withClock(h, bot.start());
  publish(h, feed);
  await bot.loops.get(h.pair.pairId)?.idle();
  await h.block();
  return { h, bot, feed, logs, tradeInfoReads };
}

const publish = (h: Harness, feed: FakeFeed) =>
  feed.publish({
    symbol: h.pair.symbol,
    buy: [{ limit: d('99.8'), quantity: d('5') }],
    sell: [{ limit: d('100.2'), quantity: d('5') }],
    receivedAt: h.clock.now(),
    source: 'ws',
  });

/** Awaits `work` while the chain mines blocks and the clock moves. */
async function mining<T>(h: Harness, work: Promise<T>): Promise<T> {
  const state = { done: false };
  const result = work.finally(() => {
    state.done = true;
  });
  for (let i = 0; i < 200 && !state.done; i++) {
    await h.block();
    h.clock.advance(200);
  }
  return result;
}

const onBook = (h: Harness) =>
  [...h.venue.pair(h.pair.pairId).book.buys, ...h.venue.pair(h.pair.pairId).book.sells].filter(
    (o) => o.wallet === WALLET,
  );

describe('the bot', () => {
  it('polls on its clock: trade information is read again when the clock passes the poll period, and never after shutdown', async () => {
    const { h, bot, tradeInfoReads } = await running();
    const atStart = tradeInfoReads.count;
    const period = async () => {
      for (let i = 0; i < 5; i++) {
        h.clock.advance(1_000);
        await h.settle();
      }
    };
    await period();
    expect(tradeInfoReads.count).toBe(atStart + 1);
    await period();
    expect(tradeInfoReads.count).toBe(atStart + 2);
    expect(await mining(h, bot.shutdown(60_000))).toBe(true);
    const atStop = tradeInfoReads.count;
    h.clock.advance(60_000);
    await h.settle();
    expect(tradeInfoReads.count).toBe(atStop);
  });

  it('position and PnL gauges show every fill recorded when they are scraped, without waiting for a round', async () => {
    const { h, bot } = await running();
    const pairId = h.pair.pairId;
    expect(await metricValue(h.metrics, 'dltmm_position_base', { pair: pairId })).toBe(0);
    // No round runs from here on: whatever the gauges show comes from the scrape itself.
    await bot.loops.get(pairId)?.stop();
    const best = h.venue
      .pair(pairId)
      .book.sells.filter((o) => o.wallet === WALLET)
      .toSorted((a, b) => (a.price < b.price ? -1 : 1))[0]!;
    const taken = best.remaining;
    h.venue.place(TAKER, pairId, 'buy', taken, best.price);
    await h.block();
    const fills = h.engine.fills(pairId).after(0);
    expect(fills.map((f) => [f.fill.side, f.fill.quantity])).toEqual([['sell', taken]]);
    const position = quantityFromRaw(taken, h.pair.rules.scales).neg().toNumber();
    expect(await metricValue(h.metrics, 'dltmm_position_base', { pair: pairId })).toBe(position);
    expect(await metricValue(h.metrics, 'dltmm_pnl_quote', { pair: pairId, kind: 'fees' })).toBeGreaterThanOrEqual(0);
  });

  it('a SIGTERM right after the kill switch tripped still leaves no order of ours on the book', async () => {
    const { h, bot } = await running();
    expect(onBook(h)).toHaveLength(6);
    // What the shutdown leaves when it stops the engine is what a process that exits next leaves on the book.
    const stop = h.engine.stop.bind(h.engine);
    const atStop = { live: -1, onBook: -1 };
    h.engine.stop = async () => {
      Object.assign(atStop, { live: h.store.orders.live({ wallet: WALLET }).length, onBook: onBook(h).length });
      return stop();
    };
    // The loss limit trips the kill switch, whose cancellations are in flight when the shutdown begins.
    bot.risk.pnl(h.pair.pairId, toVenueLocal(h.clock.now()).date, d('-5'));
    expect(bot.phase).toBe('killed');
    const clean = await mining(h, bot.shutdown(60_000));
    expect({ clean, atStop }).toEqual({ clean: true, atStop: { live: 0, onBook: 0 } });
    expect(bot.phase).toBe('stopped');
  });

  it('shutdown closes nothing while an outcome it sent is open: cancellations the follower settled first are awaited', async () => {
    const { h, bot } = await running();
    expect(onBook(h)).toHaveLength(6);
    // The node answers the cancellations' receipts late; the follower sees their events first.
    h.adapter.holdOutcomes();
    const stop = h.engine.stop.bind(h.engine);
    let unsettledAtStop = -1;
    h.engine.stop = async () => {
      unsettledAtStop = h.adapter.unsettled().length;
      return stop();
    };
    const state = { done: false };
    const shutdown = bot.shutdown(60_000).finally(() => (state.done = true));
    for (let i = 0; i < 20 && !state.done; i++) {
      await h.block();
      h.clock.advance(200);
    }
    // Every order is cancelled in the store and gone from the book, and still the shutdown waits for the outcomes.
    expect({
      done: state.done,
      live: h.store.orders.live({ wallet: WALLET }).length,
      onBook: onBook(h).length,
      open: h.adapter.unsettled().map((t) => t.kind),
    }).toEqual({
      done: false,
      live: 0,
      onBook: 0,
      open: Array(6).fill('cancel'),
    });
    h.adapter.releaseOutcomes();
    expect({ clean: await mining(h, shutdown), unsettledAtStop }).toEqual({ clean: true, unsettledAtStop: 0 });
  });

  it('shutdown names the transactions the chain had not decided at the deadline', async () => {
    const { h, bot, logs } = await running();
    h.adapter.holdOutcomes();
    const clean = await mining(h, bot.shutdown(3_000));
    expect(clean).toBe(false);
    const line = logs.find((l) =>
      String(l.msg).startsWith('shutdown deadline passed before the chain decided these transactions'),
    );
    expect((line?.unsettled as Array<{ kind: string }> | undefined)?.map((t) => t.kind)).toEqual(
      Array(6).fill('cancel'),
    );
    h.adapter.releaseOutcomes();
  });

  it('a reconciliation the venue refuses (401) is tried again with back-off, says why the wallet is not ready, and trading starts once it succeeds', async () => {
    let refusals = 2;
    const rest = {
      walletOrders: async () => {
        if (refusals-- > 0) throw new DltError('E_REST_AUTH', 'the venue refused the access token (HTTP 401)');
        return [];
      },
    };
    const { h, bot, feed, logs } = await running({
      engine: { rest, reconcileRetry: { firstMs: 1_000, maxMs: 60_000 } },
    });
    // Not ready, and saying why: in /readyz, in the metric, in the log.
    expect(bot.readiness()).toEqual({ ready: false, detail: expect.stringContaining('E_REST_AUTH') });
    expect(await metricValue(h.metrics, 'dltmm_wallet_ready', { reason: 'E_REST_AUTH' })).toBe(0);
    expect(onBook(h)).toEqual([]);
    // The second attempt, 1 s later, fails the same way; the third, 2 s after it, succeeds.
    h.clock.advance(1_000);
    await h.settle();
    expect(bot.readiness().ready).toBe(false);
    await withClock(
      h,
      whenTrue(() => bot.readiness().ready, 'the bot ready'),
    );
    expect(await metricValue(h.metrics, 'dltmm_wallet_ready', { reason: '' })).toBe(1);
    publish(h, feed);
    await bot.loops.get(h.pair.pairId)?.idle();
    await h.block();
    expect(onBook(h)).toHaveLength(6);
    // The repeated failure was logged once, and its end once, with the count.
    const engineLogs = h.logs.filter((l) => String(l.incident).endsWith('wallet reconciliation'));
    expect(engineLogs.map((l) => [l.msg, l.what ?? null, l.failures ?? null])).toEqual([
      ['evm wallet reconciliation failing', 'failed; the wallet is not ready; trying again', null],
      ['evm wallet reconciliation working again', null, 2],
    ]);
    expect(logs.some((l) => l.msg === 'wallet reconciled; its pairs trade')).toBe(true);
  });
});
