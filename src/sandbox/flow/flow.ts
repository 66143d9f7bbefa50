/**
 * The simulated market: per pair a background maker that keeps a ladder of quotes on both sides around its
 * lagged view of the true value (so a book is never empty, and its mid trails the value as a thin market's
 * does), and takers at random intervals, informed or not (`takers.ts`). Everything goes through real signed
 * transactions of the simulated traders' own wallets, and every decision is read from the venue's own view
 * of the book. Seeded, so a seed replays the same decisions; each wallet has at most one maker action in
 * flight per pair, which keeps the load modest (a few transactions per block or ledger).
 */
import type { Logger } from 'pino';
import { priceFromRaw } from '../../core/units.ts';
import type { EvmTrader } from './evm-trader.ts';
import {
  exclusive,
  type FlowPair,
  type FlowSettings,
  type FlowStats,
  type FlowTraders,
  type FlowValues,
  type Runtime,
} from './flow-types.ts';
import { LaggedReference } from './lagged.ts';
import { makerLadder, reconcileSide, withReference, type Quote } from './quotes.ts';
import { SeededRandom } from './random.ts';
import { TakerStats, type TakerKind } from './taker-stats.ts';
import { Takers } from './takers.ts';

export type { FlowPair, FlowSettings, FlowStats, FlowTraders, FlowValues } from './flow-types.ts';

export class MarketFlow {
  readonly stats: FlowStats = { placed: 0, cancelled: 0, takerOrders: 0, failures: 0 };
  readonly #settings: FlowSettings;
  readonly #traders: FlowTraders;
  readonly #values: FlowValues;
  readonly #logger: Logger | undefined;
  readonly #runtimes: Runtime[];
  readonly #takerStats: TakerStats;
  readonly #takers: Takers;
  readonly #inflight = new Set<Promise<unknown>>();
  #makerTimer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    pairs: readonly FlowPair[],
    traders: FlowTraders,
    values: FlowValues,
    settings: FlowSettings,
    logger?: Logger,
  ) {
    this.#settings = settings;
    this.#traders = traders;
    this.#values = values;
    this.#logger = logger;
    const root = new SeededRandom(settings.seed);
    this.#runtimes = pairs.map((fp) => ({
      fp,
      random: root.fork(fp.pair.id),
      busy: new Set(),
      maker: new LaggedReference(values.value(fp.pair.id), performance.now(), settings.makerLagMs),
    }));
    this.#takerStats = new TakerStats(
      pairs.map((fp) => fp.pair),
      takerWallets(traders),
    );
    this.#takers = new Takers(settings, traders, values, this.stats, this.#takerStats);
  }

  get running(): boolean {
    return this.#running;
  }

  /** Per pair id: the maker's lagged view of the true value (human), and who the takers traded with (`TakerStats`). */
  describe(): Record<string, unknown> {
    const takers = this.#takerStats.describe();
    return Object.fromEntries(
      this.#runtimes.map((r) => [
        r.fp.pair.id,
        {
          makerReference: r.maker.value.toDecimalPlaces(6).toFixed(),
          takers: takers[r.fp.pair.id],
        },
      ]),
    );
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#makerTimer = setInterval(() => {
      for (const rt of this.#runtimes) this.#track(this.#makerStep(rt));
    }, this.#settings.makerTickMs);
    this.#makerTimer.unref();
    for (const rt of this.#runtimes) this.#scheduleTaker(rt);
  }

  /** Stops deciding and waits for the transactions in flight. */
  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#makerTimer);
    for (const rt of this.#runtimes) clearTimeout(rt.takerTimer);
    await Promise.allSettled([...this.#inflight]);
  }

  /**
   * Puts the first ladder on every book before the market opens to others. Chain B wallets send one
   * transaction per ledger, so each round of sends is followed by `closeLedger` when the caller drives
   * ledgers by hand.
   */
  async seed(closeLedger?: () => void): Promise<void> {
    // Closed books (calendar mode outside trading hours) get their quotes from the maker at the open.
    const open = this.#runtimes.filter((rt) => rt.fp.pair.status.tradingStatus === 'CONTINUOUS_TRADING');
    const ladders = open.map((rt) => ({
      rt,
      ladder: makerLadder(
        rt.maker.value,
        withReference(rt.fp.rules, rt.fp.pair.status.staticReferencePrice),
        this.#settings.maker,
        rt.random,
      ),
    }));
    const failed = (e: unknown) => {
      this.stats.failures += 1;
      this.#logger?.warn({ err: e }, 'first quote of the simulated market failed');
      return undefined;
    };
    const maker = this.#traders.evmMaker;
    if (maker !== undefined) {
      const evm = ladders.filter((l) => l.rt.fp.pair.chain === 'evm');
      await Promise.all(evm.flatMap(({ rt, ladder }) => ladder.map((q) => this.#evmPlace(maker, rt, q).catch(failed))));
      await this.#traders.evmFollower?.sync();
    }
    const wasm = ladders.filter((l) => l.rt.fp.pair.chain === 'wasm');
    for (let level = 0; level < this.#settings.maker.levels; level++) {
      const sends = wasm.flatMap(({ rt, ladder }) => {
        const w = this.#traders.wasm?.get(rt.fp.pair.id);
        if (w === undefined) return [];
        return (['buy', 'sell'] as const).flatMap((side) => {
          const q = ladder.filter((x) => x.side === side)[level];
          const trader = side === 'buy' ? w.bid : w.ask;
          return q === undefined
            ? []
            : [
                trader
                  .sendOrder(rt.fp.orderBook, rt.fp.pair.scales, q.side, q.quantity, q.price)
                  .then((hash) => ({ trader, hash }), failed),
              ];
        });
      });
      const sent = (await Promise.all(sends)).filter((x) => x !== undefined);
      closeLedger?.();
      const outcomes = await Promise.all(sent.map((x) => x.trader.outcome(x.hash).catch(failed)));
      this.stats.placed += outcomes.filter((o) => o?.status === 'SUCCESS').length;
    }
  }

  #track(p: Promise<unknown>): void {
    const tracked = p.catch((e: unknown) => {
      this.stats.failures += 1;
      this.#logger?.debug({ err: e }, 'simulated trader action failed');
    });
    this.#inflight.add(tracked);
    void tracked.finally(() => this.#inflight.delete(tracked));
  }

  async #evmPlace(trader: EvmTrader, rt: Runtime, q: Quote): Promise<bigint | undefined> {
    const placed = await trader.place(rt.fp.orderBook, rt.fp.pair.scales, q.side, q.quantity, q.price);
    if (placed.receipt.status) this.stats.placed += 1;
    else this.stats.failures += 1;
    return placed.receipt.status ? BigInt(placed.receipt.blockNumber) : undefined;
  }

  async #makerStep(rt: Runtime): Promise<void> {
    const p = rt.fp.pair;
    const fair = rt.maker.update(this.#values.value(p.id), performance.now());
    if (!this.#running || p.status.tradingStatus !== 'CONTINUOUS_TRADING') return;
    const rules = withReference(rt.fp.rules, p.status.staticReferencePrice);
    const ladder = makerLadder(fair, rules, this.#settings.maker, rt.random);
    const own = (wallet: string, side: 'buy' | 'sell') =>
      p.market.book
        .ordersOf(wallet)
        .filter((o) => o.side === side)
        .map((o) => ({ orderId: o.orderId, price: priceFromRaw(o.price, p.scales) }));
    if (p.chain === 'evm') {
      const maker = this.#traders.evmMaker;
      if (maker === undefined) return;
      await exclusive(rt, 'maker', async () => {
        const work: Promise<unknown>[] = [];
        let latest = 0;
        for (const side of ['buy', 'sell'] as const) {
          const r = reconcileSide(side, own(maker.address, side), ladder, fair, this.#settings.maker);
          for (const id of r.cancel) {
            work.push(
              maker.cancel(rt.fp.orderBook, side, id).then((rc) => {
                latest = Math.max(latest, rc.blockNumber);
                this.stats.cancelled += 1;
              }),
            );
          }
          for (const q of r.place) {
            work.push(
              this.#evmPlace(maker, rt, q).then((block) => {
                latest = Math.max(latest, Number(block ?? 0));
              }),
            );
          }
        }
        await Promise.all(work);
        // The next decision must see these transactions in the venue's view.
        if (latest > 0) await this.#traders.evmFollower?.waitForBlock(latest);
      });
      return;
    }
    const w = this.#traders.wasm?.get(p.id);
    if (w === undefined) return;
    await Promise.all(
      (['buy', 'sell'] as const).map((side) =>
        exclusive(rt, side, async () => {
          const trader = side === 'buy' ? w.bid : w.ask;
          const r = reconcileSide(side, own(trader.address, side), ladder, fair, this.#settings.maker);
          const cancel = r.cancel[0];
          const place = r.place[0];
          if (cancel !== undefined) {
            await trader.outcome(await trader.sendCancel(rt.fp.orderBook, side, cancel));
            this.stats.cancelled += 1;
          } else if (place !== undefined) {
            const out = await trader.outcome(
              await trader.sendOrder(rt.fp.orderBook, p.scales, side, place.quantity, place.price),
            );
            if (out.status === 'SUCCESS') this.stats.placed += 1;
          }
        }),
      ),
    );
  }

  #scheduleTaker(rt: Runtime): void {
    if (!this.#running) return;
    rt.takerTimer = setTimeout(() => {
      const step = this.#takers.step(rt, () => this.#running);
      this.#track(step);
      void step.catch(() => undefined).finally(() => this.#scheduleTaker(rt));
    }, rt.random.exponential(this.#settings.takerIntervalMs));
    rt.takerTimer.unref();
  }
}

/** The takers' wallets and their kind, as the venue's view names them. */
function takerWallets(t: FlowTraders): Map<string, TakerKind> {
  const out = new Map<string, TakerKind>();
  if (t.evmTaker !== undefined) out.set(t.evmTaker.address, 'uninformed');
  if (t.evmInformed !== undefined) out.set(t.evmInformed.address, 'informed');
  for (const w of t.wasm?.values() ?? []) {
    out.set(w.taker.address, 'uninformed');
    out.set(w.informed.address, 'informed');
  }
  return out;
}
