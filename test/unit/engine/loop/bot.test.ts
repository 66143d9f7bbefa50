import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { toVenueLocal } from '../../../../src/core/calendar.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { Bot } from '../../../../src/engine/loop/bot.ts';
import { StrategyCatalog } from '../../../../src/engine/loop/strategy-catalog.ts';
import { resolveLimits } from '../../../../src/engine/risk/limits.ts';
import type { MarketBook } from '../../../../src/venue/market-data/book.ts';
import { harness, WALLET, withClock, type Harness } from '../../../support/engine/harness.ts';

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

async function running(): Promise<{ h: Harness; bot: Bot; feed: FakeFeed }> {
  const h = await harness();
  open.push(h);
  const feed = new FakeFeed();
  const catalog = new StrategyCatalog((p) => readFileSync(p, 'utf8'));
  const bot = new Bot({
    wallets: [{ id: 'w', engine: h.engine, adapter: h.adapter, marketMaker: false, nativeDecimals: 18 }],
    pairs: [{ binding: h.pair, walletId: 'w', strategy: () => catalog.get(ladder), limits: () => resolveLimits({ dailyLossLimit: '1', staleMarketDataMs: 600_000 }), refreshCost: d('0') }],
    feed: feed as never,
    rest: { getTradeInfo: async () => ({ raw: {}, tradingStatus: 'CONTINUOUS_TRADING', lastPrice: d('100'), referencePrice: d('100') }) },
    calendar: { enabled: false, config: { holidays: [], open: '08:00', close: '17:00', clearingDelayMinutes: 5 } },
    // No timers: the test drives every trigger.
    timings: { tickMs: 0, tradeInfoPollMs: 0, phasePollMs: 0, balanceMaxAgeMs: 0, inventoryCheckMs: 0 },
    now: () => h.clock.now(),
    logger: pino({ level: 'silent' }),
    metrics: h.metrics,
    reloadStrategies: () => [],
  });
  await withClock(h, bot.start());
  feed.publish({ symbol: h.pair.symbol, buy: [{ limit: d('99.8'), quantity: d('5') }], sell: [{ limit: d('100.2'), quantity: d('5') }], receivedAt: h.clock.now(), source: 'ws' });
  await bot.loops.get(h.pair.pairId)?.idle();
  await h.block();
  return { h, bot, feed };
}

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

const onBook = (h: Harness) => [...h.venue.pair(h.pair.pairId).book.buys, ...h.venue.pair(h.pair.pairId).book.sells].filter((o) => o.wallet === WALLET);

describe('the bot', () => {
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
});
