/**
 * The simulated market: per pair a fair value that moves as a random walk, a background maker that keeps a
 * ladder of quotes on both sides around it (so a book is never empty), and a taker that sends a crossing
 * order at random intervals (chain A: a crossing limit order whose rested remainder it cancels at once;
 * chain B: a market or IOC order). Everything goes through real signed transactions of the simulated
 * traders' own wallets, and every decision is read from the venue's own view of the book. Seeded, so a seed
 * replays the same decisions; each wallet has at most one maker action in flight per pair, which keeps the
 * load modest (a few transactions per block or ledger).
 */
import type { Logger } from 'pino';
import { Decimal } from '../../core/decimal.ts';
import type { PairRules } from '../../core/rules.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import type { EvmFollower } from '../api/evm-follower.ts';
import type { VenuePair } from '../api/venue-state.ts';
import type { EvmTrader } from './evm-trader.ts';
import { FairValue } from './fair-value.ts';
import { makerLadder, reconcileSide, takerOrder, withReference, type MakerSettings, type Quote } from './quotes.ts';
import { SeededRandom } from './random.ts';
import type { WasmTrader } from './wasm-trader.ts';

export interface FlowSettings {
  readonly seed: number;
  /** Relative standard deviation of the fair value per sqrt(hour). */
  readonly volatility: number;
  /** Mean wall time between two taker orders of one pair. */
  readonly takerIntervalMs: number;
  /** Wall time between two maker decisions. */
  readonly makerTickMs: number;
  readonly maker: MakerSettings;
}

export interface FlowPair {
  readonly pair: VenuePair;
  readonly rules: PairRules;
  /** Order book address the traders send to (chain A 0x address, chain B C... strkey). */
  readonly orderBook: string;
}

export interface FlowTraders {
  readonly evmMaker?: EvmTrader;
  readonly evmTaker?: EvmTrader;
  readonly evmFollower?: EvmFollower;
  /** Chain B: per pair id, one wallet per maker side and a taker. */
  readonly wasm?: ReadonlyMap<
    string,
    { readonly bid: WasmTrader; readonly ask: WasmTrader; readonly taker: WasmTrader }
  >;
}

export interface FlowStats {
  placed: number;
  cancelled: number;
  takerOrders: number;
  failures: number;
}

interface Runtime {
  readonly fp: FlowPair;
  readonly fair: FairValue;
  readonly random: SeededRandom;
  lastStepMs: number;
  readonly busy: Set<string>;
  takerTimer?: NodeJS.Timeout;
}

export class MarketFlow {
  readonly stats: FlowStats = { placed: 0, cancelled: 0, takerOrders: 0, failures: 0 };
  readonly #settings: FlowSettings;
  readonly #traders: FlowTraders;
  readonly #logger: Logger | undefined;
  readonly #runtimes: Runtime[];
  readonly #inflight = new Set<Promise<unknown>>();
  #makerTimer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(pairs: readonly FlowPair[], traders: FlowTraders, settings: FlowSettings, logger?: Logger) {
    this.#settings = settings;
    this.#traders = traders;
    this.#logger = logger;
    const root = new SeededRandom(settings.seed);
    this.#runtimes = pairs.map((fp) => {
      const random = root.fork(fp.pair.id);
      const band = Math.max(
        10,
        Math.floor(Math.min(fp.rules.staticThresholdBps || 1000, Number(fp.rules.priceCollarBps) || 1000) * 0.5),
      );
      return {
        fp,
        random,
        busy: new Set(),
        lastStepMs: performance.now(),
        fair: new FairValue({
          start: fp.pair.status.staticReferencePrice,
          volatility: settings.volatility,
          bandBps: band,
          random: random.fork('fair'),
        }),
      };
    });
  }

  get running(): boolean {
    return this.#running;
  }

  /** Fair values by pair id (human). */
  fairValues(): Record<string, string> {
    return Object.fromEntries(this.#runtimes.map((r) => [r.fp.pair.id, r.fair.value.toDecimalPlaces(6).toFixed()]));
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
        rt.fair.value,
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

  async #exclusive(rt: Runtime, key: string, fn: () => Promise<void>): Promise<void> {
    if (rt.busy.has(key)) return;
    rt.busy.add(key);
    try {
      await fn();
    } finally {
      rt.busy.delete(key);
    }
  }

  async #makerStep(rt: Runtime): Promise<void> {
    const p = rt.fp.pair;
    const now = performance.now();
    const fair = rt.fair.step(now - rt.lastStepMs, p.status.staticReferencePrice);
    rt.lastStepMs = now;
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
      await this.#exclusive(rt, 'maker', async () => {
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
        this.#exclusive(rt, side, async () => {
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
      const step = this.#takerStep(rt);
      this.#track(step);
      void step.catch(() => undefined).finally(() => this.#scheduleTaker(rt));
    }, rt.random.exponential(this.#settings.takerIntervalMs));
    rt.takerTimer.unref();
  }

  async #takerStep(rt: Runtime): Promise<void> {
    const p = rt.fp.pair;
    if (!this.#running || p.status.tradingStatus !== 'CONTINUOUS_TRADING') return;
    const level = (side: 'buy' | 'sell') => {
      const l = p.market.book.levels(side, 1)[0];
      return l === undefined
        ? undefined
        : { price: priceFromRaw(l.price, p.scales), quantity: quantityFromRaw(l.quantity, p.scales) };
    };
    const last = p.market.lastPrice;
    const rules = withReference(rt.fp.rules, p.status.staticReferencePrice);
    const bestAsk = level('sell');
    const bestBid = level('buy');
    const order = takerOrder(
      { ...(bestAsk === undefined ? {} : { bestAsk }), ...(bestBid === undefined ? {} : { bestBid }) },
      rt.fair.value,
      last === undefined ? undefined : priceFromRaw(last, p.scales),
      rules,
      rt.random,
    );
    if (order === undefined) return;
    await this.#exclusive(rt, 'taker', async () => {
      this.stats.takerOrders += 1;
      if (p.chain === 'evm') {
        const taker = this.#traders.evmTaker;
        if (taker === undefined) return;
        const placed = await taker.place(rt.fp.orderBook, p.scales, order.side, order.quantity, order.price);
        if (placed.rested > 0n && placed.orderId !== undefined)
          await taker.cancel(rt.fp.orderBook, order.side, placed.orderId);
        return;
      }
      const taker = this.#traders.wasm?.get(p.id)?.taker;
      if (taker === undefined) return;
      const market = rt.random.next() < 0.5;
      const hash = market
        ? await taker.sendOrder(rt.fp.orderBook, p.scales, order.side, order.quantity, new Decimal(0), {
            type: 'market',
          })
        : await taker.sendOrder(rt.fp.orderBook, p.scales, order.side, order.quantity, order.price, {
            condition: 'ioc',
          });
      await taker.outcome(hash);
    });
  }
}
