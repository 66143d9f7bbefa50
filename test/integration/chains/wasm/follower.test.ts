/**
 * The event follower against the emulator's getEvents: the wallet's order book events and token transfers
 * in chain order with a resumable cursor, paging with lag reported, an idle cursor kept fresh, more filters
 * than one request takes, a cursor older than the retention window (gap), and malformed events skipped.
 */
import { describe, expect, it } from 'vitest';
import type { ChainEvent, EventCursor, Follower, FollowerNotice, PairBinding } from '../../../../src/chains/types.ts';
import { httpTransport, type RpcTransport } from '../../../../src/chains/wasm/json-rpc.ts';
import type { WasmAdapterOptions } from '../../../../src/chains/wasm/options.ts';
import type { Keypair } from '@stellar/stellar-sdk';
import { metricValue } from '../../../support/venue/metric-value.ts';
import {
  accepted,
  adapterFor,
  cancelCommand,
  enrol,
  freshBook,
  placeCommand,
  fileHarness,
  wallet,
  type Built,
} from '../../../support/chains/wasm/harness.ts';
import { StepTimer } from '../../../support/chains/wasm/step-timer.ts';
import { pacedClock } from '../../../support/clock.ts';

const RETENTION = 40;
const h = fileHarness({ retentionLedgers: RETENTION });

interface Watch {
  readonly follower: Follower;
  readonly notices: FollowerNotice[];
  readonly timer: StepTimer;
  readonly built: Built;
  events(): ChainEvent[];
  lastCursor(): EventCursor | null;
  stop(): Promise<void>;
}

async function watch(
  trader: Keypair,
  pairs: readonly PairBinding[],
  from: EventCursor | null,
  o: Partial<WasmAdapterOptions> = {},
): Promise<Watch> {
  const timer = new StepTimer();
  const built = adapterFor(h, trader, { clock: pacedClock(() => h.clock.now(), timer.sleep), ...o });
  const notices: FollowerNotice[] = [];
  const follower = built.adapter.follow(pairs, from, async (n) => {
    notices.push(n);
  });
  await timer.idle();
  return {
    follower,
    notices,
    timer,
    built,
    events: () => notices.flatMap((n) => (n.kind === 'events' ? n.events : [])),
    lastCursor: () => notices.flatMap((n) => (n.kind === 'events' ? [n.cursor] : [])).at(-1) ?? null,
    stop: async () => {
      await follower.stop();
      await built.adapter.close();
    },
  };
}

const ascending = (keys: readonly string[]) => keys.every((k, i) => i === 0 || (keys[i - 1] as string) < k);

describe('following the wallet', () => {
  it('reads at once when asked, without waiting out its poll interval', async () => {
    const trader = wallet(h);
    const w = await watch(trader, [h.pair], null);
    const mine = adapterFor(h, trader);
    const placed = await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '2', '12.34')));
    expect(w.events().filter((e) => e.txHash === placed.txHash)).toEqual([]);
    // No tick of the timer: the pause ends because the follower was asked for a round.
    w.follower.poll();
    for (let i = 0; i < 200 && !w.notices.some((n) => n.kind === 'lag' && n.covered === BigInt(h.emu.latest.seq)); i++)
      await new Promise((r) => setImmediate(r));
    expect(
      w
        .events()
        .filter((e) => e.txHash === placed.txHash && e.type !== 'Transfer')
        .map((e) => e.type),
    ).toEqual(['OrderReceived', 'OrderResting']);
    // Off the book again, so that no later test's order meets it.
    await accepted(await mine.adapter.submit(cancelCommand(h, 'sell', placed.orderId as bigint)));
    await Promise.all([w.stop(), mine.adapter.close()]);
  });

  it('delivers its order book events and token transfers in chain order, confirmed, and of other clients only the trade that filled ours', async () => {
    const trader = wallet(h);
    const w = await watch(trader, [h.pair], null);
    const mine = adapterFor(h, trader);
    const other = adapterFor(h, wallet(h));
    const placed = await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '2', '12.34')));
    const hit = await accepted(await other.adapter.submit(placeCommand(h, 'buy', '1', '12.34')));
    await w.timer.tick();
    const events = w.events();
    expect(w.notices.filter((n) => n.kind === 'events').every((n) => n.kind === 'events' && n.confirmed)).toBe(true);
    expect(ascending(events.map((e) => e.key))).toBe(true);
    expect(
      events.filter((e) => e.type !== 'Transfer' && e.client !== trader.publicKey()).map((e) => [e.type, e.txHash]),
    ).toEqual([['Trade', hit.txHash]]);
    const book = events.filter((e) => e.type !== 'Transfer' && e.client === trader.publicKey());
    expect(book.map((e) => e.type)).toEqual(['OrderReceived', 'OrderResting']);
    expect(book.every((e) => 'client' in e && e.client === trader.publicKey() && e.orderId === placed.orderId)).toBe(
      true,
    );
    // The base locked at placement left the wallet; the quote of the fill came in.
    const transfers = events.filter((e) => e.type === 'Transfer');
    expect(
      transfers.some((t) => t.token === 'base' && t.from === trader.publicKey() && t.to === h.pair.orderBook),
    ).toBe(true);
    expect(transfers.some((t) => t.token === 'quote' && t.to === trader.publicKey() && t.amount > 0n)).toBe(true);
    // The outcome's events are the follower's events, key for key.
    expect(placed.events.map((e) => e.key).every((k) => events.some((e) => e.key === k))).toBe(true);
    expect(w.lastCursor()?.height).toBe(BigInt(h.emu.latest.seq));
    await Promise.all([w.stop(), mine.adapter.close(), other.adapter.close()]);
  });

  it('resumes from a delivered cursor without repeating or missing an event', async () => {
    const trader = wallet(h);
    const mine = adapterFor(h, trader);
    const first = await watch(trader, [h.pair], null);
    const a = await accepted(await mine.adapter.submit(placeCommand(h, 'buy', '1', '11.00')));
    await first.timer.tick();
    const cursor = first.lastCursor();
    await first.stop();
    const b = await accepted(await mine.adapter.submit(placeCommand(h, 'buy', '1', '11.02')));
    const second = await watch(trader, [h.pair], cursor);
    const orderIds = second.events().flatMap((e) => (e.type === 'OrderReceived' ? [e.orderId] : []));
    expect(orderIds).toEqual([b.orderId]);
    expect(first.events().flatMap((e) => (e.type === 'OrderReceived' ? [e.orderId] : []))).toEqual([a.orderId]);
    await Promise.all([second.stop(), mine.adapter.close()]);
  });

  it('pages through a backlog a page at a time, reporting how far behind it is', async () => {
    const trader = wallet(h);
    const mine = adapterFor(h, trader);
    const w = await watch(trader, [h.pair], null, { follower: { pageLimit: 1, maxPagesPerRound: 1 } });
    for (const price of ['10.00', '10.02', '10.04'])
      await accepted(await mine.adapter.submit(placeCommand(h, 'buy', '1', price)));
    await w.timer.tick();
    const lag = w.notices.filter((n) => n.kind === 'lag').at(-1);
    expect(lag?.kind === 'lag' && lag.behind > 0n).toBe(true);
    expect(await metricValue(w.built.metrics, 'dltmm_wasm_follower_lag_ledgers')).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) await w.timer.tick();
    expect(w.events().filter((e) => e.type === 'OrderReceived')).toHaveLength(3);
    // At the head, and every event of the ledgers up to it delivered.
    expect(w.notices.at(-1)).toEqual({ kind: 'lag', behind: 0n, covered: BigInt(h.emu.latest.seq) });
    await Promise.all([w.stop(), mine.adapter.close()]);
  });

  it('when idle, still reports its advanced cursor every few ledgers so a stored cursor stays retained', async () => {
    const started = h.emu.latest.seq;
    const w = await watch(wallet(h), [h.pair], null, { follower: { cursorHeartbeatLedgers: 3 } });
    for (let i = 0; i < 4; i++) h.ledger();
    await w.timer.tick();
    // Where it started (said at once, so that it is durable), then the heartbeat.
    expect(w.notices.filter((n) => n.kind === 'events')).toEqual([
      { kind: 'events', events: [], confirmed: true, cursor: expect.objectContaining({ height: BigInt(started) }) },
      {
        kind: 'events',
        events: [],
        confirmed: true,
        cursor: expect.objectContaining({ height: BigInt(h.emu.latest.seq) }),
      },
    ]);
    await w.stop();
  });
});

/** A transport that records the one-ledger getEvents queries (with an end ledger) the follower makes for trade events. */
function tradeQueries(): { transport: RpcTransport; ledgers: number[] } {
  const base = httpTransport(h.rpc.url, { timeoutMs: 5000 });
  const ledgers: number[] = [];
  const transport: RpcTransport = (method, params) => {
    const p = params as { startLedger?: number; endLedger?: number };
    if (method === 'getEvents' && p.endLedger !== undefined) ledgers.push(p.startLedger ?? 0);
    return base(method, params);
  };
  return { transport, ledgers };
}

/** The taker's own trade event, from the outcome of its placement (the same event id the follower must use). */
function takerTrade(o: Awaited<ReturnType<typeof accepted>>): ChainEvent {
  const t = o.events.find((e) => e.type === 'Trade');
  if (t === undefined) throw new Error('the incoming order did not trade');
  return t;
}

/** A book of its own (earlier tests leave orders on the shared one), the bot's wallet and another client's. */
function fill(name: string): { pair: PairBinding; trader: Keypair; taker: Keypair } {
  const b = freshBook(h, name);
  return { pair: b.pair, trader: wallet(h, {}, b.d), taker: wallet(h, {}, b.d) };
}

const tradeTxs = (x: Watch) => x.events().flatMap((e) => (e.type === 'Trade' ? [e.txHash] : []));

const tradeFields = (e: ChainEvent) =>
  e.type === 'Trade'
    ? {
        key: e.key,
        txHash: e.txHash,
        client: e.client,
        orderId: e.orderId,
        side: e.side,
        quantity: e.quantity,
        price: e.price,
        pairId: e.pairId,
      }
    : e;

describe("another client's trade that filled our resting order", () => {
  it('arrives in the notice of our transfers of its transaction, keyed by its event id, for one query of that ledger', async () => {
    const { pair, trader, taker: other } = fill('trade-notice');
    const q = tradeQueries();
    const w = await watch(trader, [pair], null, { transport: q.transport });
    const mine = adapterFor(h, trader);
    const taker = adapterFor(h, other);
    await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '1', '12.50', { pair })));
    const hit = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '0.5', '12.60', { pair })));
    await w.timer.tick();
    const expected = takerTrade(hit);
    // Executed at our resting price, the price attribution needs.
    expect(expected).toMatchObject({ side: 'buy', price: 125_000n });
    const notice = w.notices.find((n) => n.kind === 'events' && n.events.some((e) => e.type === 'Trade'));
    const ofHit = notice?.kind === 'events' ? notice.events.filter((e) => e.txHash === hit.txHash) : [];
    expect(ofHit.filter((e) => e.type === 'Trade').map(tradeFields)).toEqual([tradeFields(expected)]);
    expect(ofHit.filter((e) => e.type === 'Transfer')).toEqual([
      expect.objectContaining({ token: 'quote', from: pair.orderBook, to: trader.publicKey() }),
    ]);
    expect(ascending(ofHit.map((e) => e.key))).toBe(true);
    // Our placement's lock transfer asks nothing: its transaction's trade event, if any, would be ours.
    expect(q.ledgers).toEqual([Number(hit.height)]);
    await Promise.all([w.stop(), mine.adapter.close(), taker.adapter.close()]);
  });

  it('skips and counts malformed events in the trade query reply, and delivers the trade all the same', async () => {
    const { pair, trader, taker: other } = fill('trade-malformed');
    const q = tradeQueries();
    const spoiling: RpcTransport = async (method, params) => {
      const reply = await q.transport(method, params);
      const events = (reply as { events?: Array<Record<string, unknown>> }).events;
      const good = events?.[0];
      if (
        (params as { endLedger?: number } | null)?.endLedger === undefined ||
        events === undefined ||
        good === undefined
      )
        return reply;
      const [toid, index] = String(good.id).split('-');
      events.push(
        { ...good, id: `${toid}-${String(Number(index) + 500).padStart(10, '0')}`, value: 'AAAA////' },
        { ...good, id: undefined },
      );
      return reply;
    };
    const w = await watch(trader, [pair], null, { transport: spoiling });
    const mine = adapterFor(h, trader);
    const taker = adapterFor(h, other);
    await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '1', '12.50', { pair })));
    const hit = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '0.5', '12.50', { pair })));
    await w.timer.tick();
    expect(
      w
        .events()
        .filter((e) => e.type === 'Trade')
        .map(tradeFields),
    ).toEqual([tradeFields(takerTrade(hit))]);
    expect(await metricValue(w.built.metrics, 'dltmm_wasm_malformed_total', { source: 'follower' })).toBe(2);
    await Promise.all([w.stop(), mine.adapter.close(), taker.adapter.close()]);
  });

  it('is delivered once across a resume from a delivered cursor', async () => {
    const { pair, trader, taker: other } = fill('trade-resume');
    const mine = adapterFor(h, trader);
    const taker = adapterFor(h, other);
    const first = await watch(trader, [pair], null);
    await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '1', '12.50', { pair })));
    const a = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '0.5', '12.50', { pair })));
    await first.timer.tick();
    const cursor = first.lastCursor();
    await first.stop();
    const b = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '0.5', '12.50', { pair })));
    const second = await watch(trader, [pair], cursor);
    await second.timer.tick();
    expect(tradeTxs(first)).toEqual([a.txHash]);
    expect(tradeTxs(second)).toEqual([b.txHash]);
    await Promise.all([second.stop(), mine.adapter.close(), taker.adapter.close()]);
  });

  it('stays with its transfers when a page limit cuts the window inside their transaction', async () => {
    const { pair, trader, taker: other } = fill('trade-page-cut');
    // Our placement's three events and the fill's transfer fill the page; the fill's trade comes after it.
    const w = await watch(trader, [pair], null, { follower: { pageLimit: 4, maxPagesPerRound: 1 } });
    const mine = adapterFor(h, trader);
    const taker = adapterFor(h, other);
    await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '1', '12.50', { pair })));
    const hit = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '0.5', '12.50', { pair })));
    for (let i = 0; i < 3; i++) await w.timer.tick();
    const notices = w.notices.flatMap((n) =>
      n.kind === 'events' && n.events.some((e) => e.txHash === hit.txHash)
        ? [n.events.filter((e) => e.txHash === hit.txHash)]
        : [],
    );
    expect(notices.map((events) => events.map((e) => e.type).toSorted())).toEqual([['Trade', 'Transfer']]);
    await Promise.all([w.stop(), mine.adapter.close(), taker.adapter.close()]);
  });
});

describe('many pairs', () => {
  it('with more than five filters, polls them in groups and still delivers in chain order', async () => {
    const trader = wallet(h);
    const books = Array.from({ length: 13 }, (_, i) => freshBook(h, `many-${i}`));
    for (const b of books) enrol(h, trader, {}, b.d);
    const pairs = books.map((b) => b.pair);
    const w = await watch(trader, pairs, null);
    const mine = adapterFor(h, trader);
    const last = books[12] as (typeof books)[number];
    await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '1', '13.00', { pair: last.pair })));
    await w.timer.tick();
    const events = w.events();
    expect(ascending(events.map((e) => e.key))).toBe(true);
    expect(events.map((e) => e.type).toSorted()).toEqual(['OrderReceived', 'OrderResting', 'Transfer']);
    expect(events.every((e) => e.pairId === last.pair.pairId)).toBe(true);
    await Promise.all([w.stop(), mine.adapter.close()]);
  });
});

describe('retention window', () => {
  it('reports a gap when the cursor is older than the node keeps, then follows on from the oldest ledger', async () => {
    const trader = wallet(h);
    const mine = adapterFor(h, trader);
    const first = await watch(trader, [h.pair], null);
    await accepted(await mine.adapter.submit(placeCommand(h, 'buy', '1', '11.10')));
    await first.timer.tick();
    const cursor = first.lastCursor();
    await first.stop();
    for (let i = 0; i < RETENTION + 5; i++) h.ledger();
    const after = await accepted(await mine.adapter.submit(placeCommand(h, 'buy', '1', '11.12')));
    const second = await watch(trader, [h.pair], cursor);
    const gap = second.notices.find((n) => n.kind === 'gap');
    expect(gap).toEqual({ kind: 'gap', from: cursor, oldestAvailable: BigInt(h.emu.oldest.seq) });
    expect(second.notices.indexOf(gap as FollowerNotice)).toBe(0);
    expect(second.events().flatMap((e) => (e.type === 'OrderReceived' ? [e.orderId] : []))).toEqual([after.orderId]);
    expect(await metricValue(second.built.metrics, 'dltmm_wasm_follower_gaps_total')).toBe(1);
    await Promise.all([second.stop(), mine.adapter.close()]);
  });
});

describe('malformed events', () => {
  it('counts, logs and skips an event that does not decode, delivers the rest and moves past it', async () => {
    const trader = wallet(h);
    const base = httpTransport(h.rpc.url, { timeoutMs: 5000 });
    let spoiled = 0;
    const spoiling: RpcTransport = async (method, params) => {
      const reply = await base(method, params);
      const events = (reply as { events?: Array<Record<string, unknown>> }).events;
      if (method === 'getEvents' && events !== undefined && events.length >= 2 && spoiled === 0) {
        spoiled++;
        events[0] = { ...events[0], value: 'AAAA////' };
        events[1] = { ...events[1], id: undefined };
      }
      return reply;
    };
    const w = await watch(trader, [h.pair], null, { transport: spoiling });
    const mine = adapterFor(h, trader);
    await accepted(await mine.adapter.submit(placeCommand(h, 'sell', '1', '12.80')));
    await w.timer.tick();
    await w.timer.tick();
    expect(spoiled).toBe(1);
    expect(await metricValue(w.built.metrics, 'dltmm_wasm_malformed_total', { source: 'follower' })).toBe(2);
    expect(w.events().some((e) => e.type === 'OrderResting')).toBe(true);
    expect(w.built.logs.some((l) => l.includes('malformed chain B event skipped'))).toBe(true);
    // Nothing is delivered twice after the bad ones: the cursor moved past them.
    const keys = w.events().map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);
    await Promise.all([w.stop(), mine.adapter.close()]);
  });
});
