/**
 * The simulated market's takers, one decision per pair at random intervals: with probability
 * `informedShare` an informed taker, who knows the true value and trades only against a mispriced best
 * level (`informedOrder`), otherwise an uninformed one, who crosses the spread leaning towards the true value
 * (`takerOrder`). Each kind trades from its own wallets (chain A one wallet each, chain B one per pair), so
 * the chains tell them apart. Chain A: a crossing limit order whose rested remainder is cancelled at once;
 * chain B: the informed an IOC order at the level's price, the uninformed a market or IOC order.
 */
import { Decimal } from '../../core/decimal.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import {
  exclusive,
  type FlowSettings,
  type FlowStats,
  type FlowTraders,
  type FlowValues,
  type Runtime,
} from './flow-types.ts';
import type { EvmTrader } from './evm-trader.ts';
import { informedOrder, takerOrder, withReference, type BookTop, type TakerOrder } from './quotes.ts';
import type { TakerKind, TakerStats } from './taker-stats.ts';

export class Takers {
  readonly #settings: FlowSettings;
  readonly #traders: FlowTraders;
  readonly #values: FlowValues;
  readonly #stats: FlowStats;
  readonly #takerStats: TakerStats;

  constructor(
    settings: FlowSettings,
    traders: FlowTraders,
    values: FlowValues,
    stats: FlowStats,
    takerStats: TakerStats,
  ) {
    this.#settings = settings;
    this.#traders = traders;
    this.#values = values;
    this.#stats = stats;
    this.#takerStats = takerStats;
  }

  /** One taker decision on the pair, and its order when it decides to trade. */
  async step(rt: Runtime, running: () => boolean): Promise<void> {
    const p = rt.fp.pair;
    if (!running() || p.status.tradingStatus !== 'CONTINUOUS_TRADING') return;
    const level = (side: 'buy' | 'sell') => {
      const l = p.market.book.levels(side, 1)[0];
      return l === undefined
        ? undefined
        : { price: priceFromRaw(l.price, p.scales), quantity: quantityFromRaw(l.quantity, p.scales) };
    };
    const last = p.market.lastPrice === undefined ? undefined : priceFromRaw(p.market.lastPrice, p.scales);
    const rules = withReference(rt.fp.rules, p.status.staticReferencePrice);
    const bestAsk = level('sell');
    const bestBid = level('buy');
    const top: BookTop = {
      ...(bestAsk === undefined ? {} : { bestAsk }),
      ...(bestBid === undefined ? {} : { bestBid }),
    };
    const trueValue = this.#values.value(p.id);
    const kind: TakerKind = rt.random.next() < this.#settings.informedShare ? 'informed' : 'uninformed';
    const order =
      kind === 'informed'
        ? informedOrder(top, trueValue, last, rules, this.#settings.informedEdgeBps, rt.random)
        : takerOrder(top, trueValue, last, rules, rt.random);
    if (order === undefined) return;
    await exclusive(rt, kind, () => this.#send(rt, kind, order));
  }

  async #send(rt: Runtime, kind: TakerKind, order: TakerOrder): Promise<void> {
    const p = rt.fp.pair;
    if (p.chain === 'evm') {
      const taker: EvmTrader | undefined = kind === 'informed' ? this.#traders.evmInformed : this.#traders.evmTaker;
      if (taker === undefined) return;
      this.#counted(p.id, kind);
      const placed = await taker.place(rt.fp.orderBook, p.scales, order.side, order.quantity, order.price);
      if (placed.rested > 0n && placed.orderId !== undefined)
        await taker.cancel(rt.fp.orderBook, order.side, placed.orderId);
      return;
    }
    const w = this.#traders.wasm?.get(p.id);
    if (w === undefined) return;
    this.#counted(p.id, kind);
    const taker = kind === 'informed' ? w.informed : w.taker;
    const market = kind === 'uninformed' && rt.random.next() < 0.5;
    const hash = market
      ? await taker.sendOrder(rt.fp.orderBook, p.scales, order.side, order.quantity, new Decimal(0), { type: 'market' })
      : await taker.sendOrder(rt.fp.orderBook, p.scales, order.side, order.quantity, order.price, {
          condition: 'ioc',
        });
    await taker.outcome(hash);
  }

  #counted(pairId: string, kind: TakerKind): void {
    this.#stats.takerOrders += 1;
    this.#takerStats.order(pairId, kind);
  }
}
