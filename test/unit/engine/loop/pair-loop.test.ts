import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedAction } from '../../../../src/engine/recording/recorder.ts';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { DltError } from '../../../../src/core/errors.ts';
import { isCancellable } from '../../../../src/core/order-state.ts';
import { checkOrder } from '../../../../src/core/rules.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../../src/core/order-terms.ts';
import { priceToRaw, quantityToRaw } from '../../../../src/core/units.ts';
import type { MarketBook } from '../../../../src/venue/market-data/book.ts';
import { Throttle } from '../../../../src/engine/risk/throttle.ts';
import { INCIDENT_QUIET_MS, INCIDENT_REMIND_MS } from '../../../../src/telemetry/incidents.ts';
import { TAKER, WALLET, type Harness } from '../../../support/engine/harness.ts';
import { LADDER as ladder, ours, setup, type Setup } from '../../../support/engine/pair-loop-setup.ts';

const d = (s: string) => new Decimal(s);

/** Others' best levels 0.3 % either side of 100: none at a price of our ladder (100.2, 100.35, 100.5 and below 100). */
const apart = (h: Harness): MarketBook => ({
  symbol: h.pair.symbol,
  buy: [{ limit: d('99.7'), quantity: d('5') }],
  sell: [{ limit: d('100.3'), quantity: d('5') }],
  receivedAt: h.clock.now(),
  source: 'ws',
});

/** The ladder quoted on a book apart from it; then a taker takes our whole best ask in a block not final yet. */
async function bestAskTaken(s: Setup) {
  s.book = apart(s.h);
  await s.round();
  await s.h.block();
  const scales = s.h.pair.rules.scales;
  const best = ours(s.h)
    .filter((o) => o.side === 'sell')
    .toSorted((a, b) => a.price.cmp(b.price))[0]!;
  const filled = s.h.store.orders
    .live({ wallet: WALLET })
    .find((o) => o.side === 'sell' && o.price === priceToRaw(best.price, scales))!;
  s.h.venue.place(TAKER, s.h.pair.pairId, 'buy', quantityToRaw(best.quantity, scales), priceToRaw(best.price, scales));
  await s.h.block();
  return { best, filled };
}

const sellsSent = (h: Harness) =>
  h.adapter.sent.filter((x) => x.command.kind === 'place' && x.command.terms.side === 'sell').length;

/** A round on a market event, without the block the setup's `round` mines after it. */
async function handOverRound(s: Setup): Promise<void> {
  s.risk.marketData(s.h.pair.pairId, s.h.clock.now());
  await s.status.refreshTradeInfo(s.h.clock.now());
  s.loop.trigger(s.h.clock.now());
  await s.loop.idle();
}

const intendedOf = (h: Harness) => h.store.orders.live({ wallet: WALLET }).filter((o) => o.status === 'intended');

async function histogramCount(h: { get(): Promise<{ values: { metricName?: string; value: number }[] }> }) {
  return (await h.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
}

const submissions = (h: Harness) =>
  (h.store.db.prepare('SELECT COUNT(*) AS n FROM transactions').get() as { n: number }).n;

/** Lets the turn end: what it started is then on the wire. */
const nextTurn = () => new Promise((r) => setImmediate(r));
describe('the strategy loop of one pair', () => {
  it('answers a book message with a two-sided ladder that passes every venue rule and records the quote latency', async () => {
    const s = await setup();
    await s.round();
    const live = ours(s.h);
    expect(live.filter((o) => o.side === 'buy')).toHaveLength(3);
    expect(live.filter((o) => o.side === 'sell')).toHaveLength(3);
    for (const o of live) {
      expect(checkOrder({ ...DEFAULT_ORDER_OPTIONS, ...o }, s.h.pair.rules)).toEqual([]);
      expect(o.side === 'buy' ? o.price.lt(d('100.2')) : o.price.gt(d('99.8'))).toBe(true);
    }
    const latency = await s.metrics.quoteLatency.get();
    expect(latency.values.find((v) => v.metricName?.endsWith('_count'))?.value).toBe(1);
    const round = await s.metrics.roundLatency.get();
    expect(round.values.find((v) => v.metricName?.endsWith('_count'))?.value).toBe(1);
    expect((await s.metrics.marketOpen.get()).values).toEqual([
      { labels: { pair: s.h.pair.pairId, market: s.h.pair.symbol }, value: 1 },
    ]);
  });

  it('records each placement decided, sent and included, the outcome naming its transaction and order', async () => {
    const actions: RecordedAction[] = [];
    const s = await setup({ record: (a) => actions.push(a) });
    await s.round();
    await s.h.block();
    const sent = actions.filter((a) => a.stage === 'sent');
    expect(sent.length).toBeGreaterThan(0);
    for (const a of sent) {
      const included = actions.filter((x) => x.stage === 'included' && x.txHash === a.txHash);
      expect(included).toHaveLength(1);
      expect(included[0]?.clientOrderId).toBe(a.clientOrderId);
    }
    expect(actions.filter((a) => a.stage === 'decided')).toHaveLength(sent.length);
  });

  it('replaces a quote filled in a block not final yet at once, and keeps the store on confirmed events', async () => {
    const s = await setup({ confirmations: 1 });
    const { filled } = await bestAskTaken(s);
    expect(s.h.store.orders.get(WALLET, filled.clientOrderId)?.status).toBe('resting');
    const sells = () => sellsSent(s.h);
    const before = sells();
    // The round the tentative block's activity starts: the filled quote is replaced before the next block.
    s.loop.trigger();
    await s.loop.idle();
    expect(sells()).toBe(before + 1);
    expect(s.h.store.orders.get(WALLET, filled.clientOrderId)?.status).toBe('resting');
    // Its confirmation settles the fill; the ladder is whole again and nothing more is placed.
    await s.h.block();
    await s.h.block();
    expect(s.h.store.orders.get(WALLET, filled.clientOrderId)?.status).toBe('filled');
    s.loop.trigger();
    await s.loop.idle();
    expect(sells()).toBe(before + 1);
    expect(ours(s.h).filter((o) => o.side === 'sell')).toHaveLength(3);
  });

  it('waits for a venue book without the filled quote before replacing it: a stale book hides what the fill left', async () => {
    const s = await setup({ confirmations: 1 });
    const { best } = await bestAskTaken(s);
    const sells = () => sellsSent(s.h);
    const before = sells();
    // The venue's book has not caught up with that block: it still shows our ask.
    const stale = apart(s.h);
    s.book = { ...stale, sell: [{ limit: best.price, quantity: best.quantity }, ...stale.sell] };
    s.loop.trigger();
    await s.loop.idle();
    expect(sells()).toBe(before);
    // It has: the ask is gone from it, and the replacement goes.
    s.book = apart(s.h);
    s.loop.trigger();
    await s.loop.idle();
    expect(sells()).toBe(before + 1);
  });

  it('takes a level at the filled quote price, once a book showed that quote gone, for its replacement: nothing cancelled', async () => {
    const s = await setup({ confirmations: 2 });
    const { best, filled } = await bestAskTaken(s);
    const before = sellsSent(s.h);
    s.book = apart(s.h);
    s.loop.trigger();
    await s.loop.idle();
    expect(sellsSent(s.h)).toBe(before + 1);
    // The replacement rests, the fill is not final yet, and the next message shows the replacement: the same
    // price and size as the filled quote.
    await s.h.block();
    expect(s.h.store.orders.get(WALLET, filled.clientOrderId)?.status).toBe('resting');
    const fresh = apart(s.h);
    s.book = { ...fresh, sell: [{ limit: best.price, quantity: best.quantity }, ...fresh.sell] };
    s.loop.trigger();
    await s.loop.idle();
    await s.h.block();
    expect(s.h.adapter.sent.filter((x) => x.command.kind === 'cancel')).toEqual([]);
    expect(sellsSent(s.h)).toBe(before + 1);
    expect(ours(s.h).filter((o) => o.side === 'sell')).toHaveLength(3);
  });

  it('a tentative fill withdrawn by a reorganisation puts its quote back; the next round leaves one ladder, no rejection', async () => {
    const s = await setup({ confirmations: 1 });
    const { filled } = await bestAskTaken(s);
    const placed = s.h.adapter.sent.length;
    s.loop.trigger();
    await s.loop.idle();
    expect(s.h.adapter.sent.length).toBeGreaterThan(placed);
    // The fill's block is replaced by one without it; what the round sent is mined there.
    s.h.venue.reorg(s.h.venue.height - 1n);
    await s.h.block();
    await s.h.block();
    expect(s.h.store.orders.get(WALLET, filled.clientOrderId)?.status).toBe('resting');
    s.loop.trigger();
    await s.loop.idle();
    await s.h.block();
    await s.h.block();
    const sells = ours(s.h).filter((o) => o.side === 'sell');
    expect(sells).toHaveLength(3);
    expect(new Set(sells.map((o) => o.price.toFixed())).size).toBe(3);
    const refused = s.h.store.db
      .prepare("SELECT COUNT(*) AS n FROM orders WHERE status IN ('rejected', 'unknown')")
      .get() as { n: number };
    expect(refused.n).toBe(0);
  });

  it('a round hands its placements over and returns before any is sent: sent, counted and timed as each leaves', async () => {
    const actions: RecordedAction[] = [];
    const s = await setup({ record: (a) => actions.push(a) });
    // Every placement waits in the adapter (on chain B: for a free source account).
    const release = s.h.adapter.stallPlacements();
    await handOverRound(s);
    // The round is over: its six quotes are recorded as intended, none has left.
    expect(intendedOf(s.h)).toHaveLength(6);
    expect(s.h.adapter.sent).toEqual([]);
    expect(actions.filter((a) => a.stage === 'sent')).toEqual([]);
    expect(await histogramCount(s.metrics.quoteLatency)).toBe(0);
    release();
    await s.h.block();
    expect(ours(s.h)).toHaveLength(6);
    expect(actions.filter((a) => a.stage === 'sent')).toHaveLength(6);
    expect(await histogramCount(s.metrics.quoteLatency)).toBe(1);
    expect(await histogramCount(s.metrics.roundLatency)).toBe(1);
    expect((await s.metrics.orderMessages.get()).values.map((v) => v.value)).toEqual([6]);
  });

  it('a newer round withdraws the placements of the one before it does not decide again: never signed, not counted by its diff', async () => {
    const s = await setup();
    const release = s.h.adapter.stallPlacements();
    await handOverRound(s);
    const first = intendedOf(s.h).map((o) => o.clientOrderId);
    expect(first).toHaveLength(6);
    // The market moves before any of them left: the next round decides a whole new ladder, none of the first
    // counted as quoting (they would have been kept or replaced otherwise).
    s.book = {
      ...s.book!,
      buy: [{ limit: d('101'), quantity: d('5') }],
      sell: [{ limit: d('101.6'), quantity: d('5') }],
    };
    await handOverRound(s);
    const second = intendedOf(s.h);
    expect(second.map((o) => o.clientOrderId).filter((id) => first.includes(id))).toEqual([]);
    expect(second.filter((o) => o.price > priceToRaw(d('100.6'), s.h.pair.rules.scales))).toHaveLength(6);
    release();
    await s.h.block();
    for (const id of first)
      expect(s.h.store.orders.get(WALLET, id)).toMatchObject({
        status: 'rejected',
        rejection: { code: 'E_ORDER_WITHDRAWN' },
      });
    const signed = s.h.adapter.sent.flatMap((x) => (x.command.kind === 'place' ? [x.command.clientOrderId] : []));
    expect(signed.filter((id) => first.includes(id))).toEqual([]);
    expect(intendedOf(s.h)).toEqual([]);
    expect(ours(s.h)).toHaveLength(6);
    expect(ours(s.h).every((o) => o.price.gt(d('100.6')))).toBe(true);
    // Withdrawn is no failure: the pair quotes on.
    expect(s.risk.state(s.h.pair.pairId, s.h.clock.now()).mode).toBe('active');
  });

  it('a round that decides the queued placements again leaves them in their place: none withdrawn, none twice', async () => {
    const s = await setup();
    const release = s.h.adapter.stallPlacements();
    await handOverRound(s);
    const first = intendedOf(s.h).map((o) => o.clientOrderId);
    expect(first).toHaveLength(6);
    // Another look at the same market (an outcome, the timer): the same ladder is decided, nothing changes.
    s.loop.trigger();
    await s.loop.idle();
    expect(intendedOf(s.h).map((o) => o.clientOrderId)).toEqual(first);
    release();
    await s.h.block();
    const signed = s.h.adapter.sent.flatMap((x) => (x.command.kind === 'place' ? [x.command.clientOrderId] : []));
    expect(signed.toSorted()).toEqual(first.toSorted());
    expect(ours(s.h)).toHaveLength(6);
  });

  it('sends nothing when the market has not moved beyond the tolerance', async () => {
    const s = await setup();
    await s.round();
    const before = submissions(s.h);
    await s.round();
    await s.round();
    expect(submissions(s.h)).toBe(before);
  });

  it('coalesces triggers that arrive while a recomputation runs into one more run', async () => {
    const s = await setup();
    for (let i = 0; i < 10; i++) s.loop.trigger(s.h.clock.now());
    await s.loop.idle();
    const runs = (await s.metrics.recomputes.get()).values.reduce((n, v) => n + v.value, 0);
    expect(runs).toBeLessThanOrEqual(2);
    expect(runs).toBeGreaterThanOrEqual(1);
  });

  it("recomputes on the clock's tick only when nothing else made it recompute for that long", async () => {
    const s = await setup();
    const runs = async () => (await s.metrics.recomputes.get()).values.reduce((n, v) => n + v.value, 0);
    s.loop.trigger(s.h.clock.now());
    await s.loop.idle();
    const after = await runs();
    s.h.clock.advance(999);
    s.loop.tick(1_000);
    await s.loop.idle();
    expect(await runs()).toBe(after);
    s.h.clock.advance(1);
    s.loop.tick(1_000);
    await s.loop.idle();
    expect(await runs()).toBe(after + 1);
  });

  it('quotes nothing while the pair is not in continuous trading, and keeps what rests for the venue to clear', async () => {
    const s = await setup();
    await s.round();
    const resting = ours(s.h).length;
    s.trade = { ...s.trade, tradingStatus: 'OUT_OF_TRADING' };
    s.book = {
      ...s.book!,
      buy: [{ limit: d('95'), quantity: d('5') }],
      sell: [{ limit: d('95.4'), quantity: d('5') }],
    };
    const before = submissions(s.h);
    await s.round();
    expect(submissions(s.h)).toBe(before);
    expect(ours(s.h)).toHaveLength(resting);
    expect(s.loop.last?.mode).toMatch(/market-closed/);
    expect((await s.metrics.marketOpen.get()).values.map((v) => v.value)).toEqual([0]);
  });

  it('placements the chain refuses because a halt came first pause the pair; they do not stop it', async () => {
    const s = await setup();
    await s.round();
    expect(ours(s.h)).toHaveLength(6);
    // The market moves and the book halts before the next block: every new quote of the round is refused.
    s.h.venue.pair(s.h.pair.pairId).book.phase = 'manualHalt';
    s.book = {
      ...s.book!,
      buy: [{ limit: d('99.6'), quantity: d('5') }],
      sell: [{ limit: d('100'), quantity: d('5') }],
    };
    await s.round();
    await s.h.settle();
    const refused = (await s.metrics.rejections.get()).values.filter(
      (v) => v.labels.reason === 'E_VENUE_MARKET_CLOSED',
    );
    expect(refused.reduce((n, v) => n + v.value, 0)).toBeGreaterThanOrEqual(5);
    expect(s.risk.state(s.h.pair.pairId, s.h.clock.now()).mode).not.toBe('stopped');
    // The halt ends: the pair quotes around the new market.
    s.h.venue.pair(s.h.pair.pairId).book.phase = 'open';
    s.h.clock.advance(60_000);
    const before = submissions(s.h);
    await s.round();
    await s.round();
    expect(submissions(s.h)).toBeGreaterThan(before);
    expect(s.risk.state(s.h.pair.pairId, s.h.clock.now()).mode).toBe('active');
  });

  it('pulls every quote when market data goes stale and quotes again on fresh data', async () => {
    const s = await setup();
    await s.round();
    expect(ours(s.h).length).toBe(6);
    s.h.clock.advance(10_001);
    await s.round(false);
    await s.h.block();
    expect(ours(s.h)).toEqual([]);
    expect(s.loop.last?.mode).toMatch(/stale-market-data/);
    await s.round();
    expect(ours(s.h).length).toBe(6);
  });

  it('a failure that repeats every round is logged once, then reminded with a count, and its end once', async () => {
    const s = await setup();
    await s.round();
    const read = s.h.adapter.readBalances.bind(s.h.adapter);
    s.h.adapter.readBalances = () => Promise.reject(new DltError('E_CHAIN_RPC', 'chain node unreachable'));
    const failures = () => s.logs.filter((l) => /^quote recomputation (still )?failing/.test(String(l.msg)));
    for (let i = 0; i < 5; i++) await s.round();
    expect(failures()).toHaveLength(1);
    expect(failures()[0]).toMatchObject({ code: 'E_CHAIN_RPC', reason: 'chain node unreachable' });
    s.h.clock.advance(INCIDENT_REMIND_MS);
    await s.round();
    expect(failures()).toHaveLength(2);
    expect(failures()[1]).toMatchObject({ msg: 'quote recomputation still failing', failures: 6 });
    s.h.adapter.readBalances = read;
    await s.round();
    const ended = () => s.logs.filter((l) => l.msg === 'quote recomputation working again');
    expect(ended()).toEqual([]);
    s.h.clock.advance(INCIDENT_QUIET_MS);
    await s.round();
    expect(ended()).toEqual([expect.objectContaining({ failures: 6 })]);
  });

  it('holds placements back at the daily order message cap: cancellations still go, said once', async () => {
    const s = await setup({ limits: { maxOrderMessagesPerDay: 12 } });
    await s.round();
    expect(ours(s.h)).toHaveLength(6);
    const orders = () => (s.h.store.db.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number }).n;
    const before = orders();
    // The market moves: the ladder would be replaced, but six messages sent and six orders that may need a cancel
    // leave no room under the twelve (a cancel still goes).
    s.book = {
      ...s.book!,
      buy: [{ limit: d('104'), quantity: d('5') }],
      sell: [{ limit: d('105'), quantity: d('5') }],
    };
    await s.round();
    await s.round();
    expect(orders()).toBe(before);
    const held = s.logs.filter((l) => String(l.msg).startsWith('placements held back'));
    expect(held).toEqual([expect.objectContaining({ rule: 'maxOrderMessagesPerDay' })]);
    // The day's messages: the six placements and the cancellation that still went out.
    expect((await s.metrics.orderMessages.get()).values.map((v) => v.value)).toEqual([7]);
  });

  it('throttles placements to two a block: the ladder goes out over blocks, cancellations never wait, said once', async () => {
    const wallet = new Throttle('wallet', () => ({ perBlock: 2, perSecond: null }));
    const s = await setup({ throttles: [wallet] });
    const placements = () => s.h.adapter.sent.filter((x) => x.command.kind === 'place').length;
    const cancels = () => s.h.adapter.sent.filter((x) => x.command.kind === 'cancel').length;
    // What each block can hold of ours: the placements sent since the block before it.
    const perBlock: number[] = [];
    let counted = 0;
    const mine = s.h.venue.mine.bind(s.h.venue);
    s.h.venue.mine = () => {
      perBlock.push(placements() - counted);
      counted = placements();
      return mine();
    };
    await s.round();
    for (let i = 0; i < 3 && ours(s.h).length < 6; i++) await s.round(false);
    expect(ours(s.h)).toHaveLength(6);
    expect(Math.max(...perBlock)).toBe(2);
    expect(perBlock.filter((n) => n > 0).length).toBeGreaterThanOrEqual(3);
    const throttled = s.logs.filter((l) => String(l.msg).startsWith('placements throttled'));
    expect(throttled).toEqual([expect.objectContaining({ scope: 'wallet', rule: 'perBlock' })]);
    expect(s.loop.held).toBe('throttled (wallet perBlock)');
    // The market moves: two replacements fill the throttle; the data then goes stale and every quote is pulled
    // at once, the throttle notwithstanding.
    s.book = {
      ...s.book!,
      buy: [{ limit: d('104'), quantity: d('5') }],
      sell: [{ limit: d('105'), quantity: d('5') }],
    };
    s.risk.marketData(s.h.pair.pairId, s.h.clock.now());
    s.loop.trigger(s.h.clock.now());
    await s.loop.idle();
    expect(wallet.inFlight).toBe(2);
    const before = cancels();
    const resting = s.h.store.orders.live({ wallet: WALLET }).filter((o) => isCancellable(o.status)).length;
    expect(resting).toBeGreaterThanOrEqual(4);
    s.h.clock.advance(10_001);
    s.loop.trigger();
    await s.loop.idle();
    expect(cancels() - before).toBe(resting);
    const actions = (await s.metrics.actions.get()).values;
    expect(actions.some((v) => v.labels.result === 'throttled-wallet-perBlock' && v.value > 0)).toBe(true);
  });

  it('a pause is logged once with its reasons, and once when the pair quotes again', async () => {
    const s = await setup();
    await s.round();
    s.h.clock.advance(10_001);
    for (let i = 0; i < 4; i++) await s.round(false);
    const paused = s.logs.filter((l) => String(l.msg).startsWith('pair paused'));
    expect(paused).toEqual([
      expect.objectContaining({ msg: 'pair paused: stale-market-data', reasons: ['stale-market-data'] }),
    ]);
    await s.round();
    await s.round();
    expect(s.logs.filter((l) => l.msg === 'pair quoting again')).toHaveLength(1);
  });

  it('counts a side as quoted while an order of ours rests on it, also while its cancel is on its way', async () => {
    const s = await setup();
    await s.round();
    expect(s.loop.presence()).toEqual({ buy: true, sell: true });
    const sells = s.h.store.orders.live({ wallet: WALLET }).filter((o) => o.side === 'sell');
    for (const o of sells) await s.h.engine.cancel(o.clientOrderId);
    expect(s.loop.presence()).toEqual({ buy: true, sell: true });
    await s.h.block();
    expect(s.loop.presence()).toEqual({ buy: true, sell: false });
  });

  it('applies the risk gate: no more live orders than maxOpenOrders', async () => {
    const s = await setup({ limits: { maxOpenOrders: 2 } });
    await s.round();
    expect(
      ours(s.h)
        .map((o) => o.side)
        .toSorted(),
    ).toEqual(['buy', 'sell']);
  });

  it('never sends a quote that would trade with an order of ours still on the book', async () => {
    const s = await setup();
    // An old bid of ours far above the new market: the new asks would meet it until its cancellation is final.
    await s.h.engine.place({ pairId: s.h.pair.pairId, side: 'buy', quantity: d('1'), price: d('100.5') });
    await s.h.block();
    await s.round();
    const live = ours(s.h);
    const highBid = live.find((o) => o.side === 'buy' && o.price.eq(d('100.5')));
    const lowestAsk = live
      .filter((o) => o.side === 'sell')
      .reduce<Decimal | null>((m, o) => (m === null || o.price.lt(m) ? o.price : m), null);
    expect(highBid === undefined || lowestAsk === null || lowestAsk.gt(highBid.price)).toBe(true);
    expect((await s.metrics.actions.get()).values.some((v) => v.labels.result === 'waits-for-own-cancel')).toBe(true);
    await s.round();
    await s.round();
    expect(ours(s.h).some((o) => o.side === 'buy' && o.price.eq(d('100.5')))).toBe(false);
    expect(ours(s.h).filter((o) => o.side === 'sell')).toHaveLength(3);
  });

  it('quotes with the strategy file as read again on reload, and keeps the last good version of a broken one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltmm-strategy-'));
    try {
      const path = join(dir, 'ladder.yaml');
      const text = readFileSync(ladder, 'utf8');
      writeFileSync(path, text);
      const s = await setup({ strategy: path });
      await s.round();
      expect(ours(s.h).filter((o) => o.side === 'buy')).toHaveLength(3);

      writeFileSync(path, text.replace('levels: 3 ', 'levels: 1 '));
      expect(s.catalog.reload()).toEqual([]);
      await s.round(false);
      await s.round(false);
      expect(
        ours(s.h)
          .map((o) => o.side)
          .toSorted(),
      ).toEqual(['buy', 'sell']);
      const hash = s.catalog.get(path).hash;

      writeFileSync(path, text.replace('levels: 3 ', 'levels: none '));
      const problems = s.catalog.reload();
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('levels');
      expect(s.catalog.get(path).hash).toBe(hash);
      const sent = submissions(s.h);
      await s.round(false);
      expect([submissions(s.h), ours(s.h).length]).toEqual([sent, 2]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sends nothing more of a round once stopped: the shutdown's cancel-all is not raced by new quotes", async () => {
    const s = await setup();
    s.risk.marketData(s.h.pair.pairId, s.h.clock.now());
    await s.status.refreshTradeInfo(s.h.clock.now());
    s.loop.trigger(s.h.clock.now());
    await s.loop.stop();
    await s.h.block();
    expect([submissions(s.h), ours(s.h)]).toEqual([0, []]);
    // A trigger after the stop does nothing either.
    s.loop.trigger(s.h.clock.now());
    await s.loop.idle();
    expect(submissions(s.h)).toBe(0);
  });

  it('reads balances when they change, in the background, and the next market event quotes without another read', async () => {
    const s = await setup({ balanceMaxAgeMs: 10_000 });
    await s.round();
    let reads = 0;
    const read = s.h.adapter.readBalances.bind(s.h.adapter);
    s.h.adapter.readBalances = (pair) => {
      reads += 1;
      return read(pair);
    };
    // Nothing changed and the last read is young: a market event reads nothing.
    await s.round();
    expect(reads).toBe(0);
    // A fill (or an outcome) changes them: the read starts at once (once the turn's changes are in), before any
    // market event.
    s.loop.balancesChanged();
    await Promise.resolve();
    expect(reads).toBe(1);
    await s.round();
    expect(reads).toBe(1);
    // A change while a read is in flight (started in an earlier turn) makes that read out of date: the quotes
    // wait for a new one.
    s.loop.balancesChanged();
    await nextTurn();
    s.loop.balancesChanged();
    await s.round();
    expect(reads).toBe(3);
    // A burst of changes while a read is on the wire (a block settling several of the pair's orders): one
    // more read, when it ends, covers them all, and the quotes use that one.
    s.loop.balancesChanged();
    await nextTurn();
    for (let i = 0; i < 5; i++) s.loop.balancesChanged();
    expect(reads).toBe(4);
    await s.round();
    expect(reads).toBe(5);
    await s.round();
    expect(reads).toBe(5);
  });

  it('gives Avellaneda-Stoikov the time to the session close from the calendar; without a calendar it has no horizon', async () => {
    const as = fileURLToPath(new URL('../../../../strategies/avellaneda-stoikov.yaml', import.meta.url));
    const withCalendar = await setup({ strategy: as, calendar: true });
    await withCalendar.round();
    await withCalendar.round();
    // (The test wallet holds far more base than the model's target, so the skew may leave only the ask.)
    expect(ours(withCalendar.h).length).toBeGreaterThan(0);
    const alwaysOpen = await setup({ strategy: as });
    await alwaysOpen.round();
    await alwaysOpen.round();
    expect(ours(alwaysOpen.h)).toEqual([]);
  });
  it("exports the wallet's native fee balance and the configured alert level beside it", async () => {
    const s = await setup({ limits: { nativeAlert: '2.5' } });
    await s.round();
    const labels = { chain: s.h.pair.chain, wallet: WALLET };
    // The fake chain holds exactly one native token (10^18 at 18 decimals).
    expect((await s.metrics.nativeBalance.get()).values).toEqual([{ labels, value: 1 }]);
    expect((await s.metrics.nativeAlertLevel.get()).values).toEqual([{ labels, value: 2.5 }]);
  });
});

describe('the strategy loop with markouts', () => {
  it("hands the evaluation the mid of others' book when the pair has no fair value: a fill is valued then and a second later", async () => {
    const s = await setup({ markoutHorizonsMs: [1_000] });
    const { best } = await bestAskTaken(s);
    // The round after the fill: others' book is still 99.7 / 100.3, so the fill is valued at 100.
    await s.round();
    const e = s.evaluation!;
    expect(e.attribution().spreadCapture.toFixed()).toBe(best.price.sub(100).mul(best.quantity).toFixed());
    // Others move up before the horizon: the sale marks out at (price - 100.5) × quantity.
    s.book = {
      ...apart(s.h),
      buy: [{ limit: d('100.2'), quantity: d('5') }],
      sell: [{ limit: d('100.8'), quantity: d('5') }],
    };
    s.h.clock.advance(600);
    await s.round();
    s.h.clock.advance(600);
    await s.round();
    const m = e.markouts(1_000)!;
    expect({ fills: m.bySide.sell.fills, quote: m.bySide.sell.quote.toFixed(), level: [...m.byLevel.keys()] }).toEqual({
      fills: 1,
      quote: best.price.sub(d('100.5')).mul(best.quantity).toFixed(),
      level: [0],
    });
  });
});
