/**
 * The series the strategy loop writes: quote latency, actions, spread; and the pair's state gauges (quote
 * presence per side, trading mode, position and PnL), read from the loops at every scrape.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { approxQuotient, type Decimal } from '../../core/decimal.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import { totalPnl, unrealised } from '../risk/pnl.ts';
import type { PairLoop } from './pair-loop.ts';
import type { PnlTracker } from './pnl-tracker.ts';

export interface LoopMetrics {
  readonly quoteLatency: Histogram<'pair'>;
  readonly roundLatency: Histogram<'pair'>;
  readonly inclusionLatency: Histogram<'chain'>;
  readonly recomputes: Counter<'pair' | 'outcome'>;
  readonly actions: Counter<'pair' | 'type' | 'result'>;
  readonly dropped: Counter<'pair' | 'rule'>;
  readonly rejections: Counter<'pair' | 'reason'>;
  readonly spread: Gauge<'pair'>;
  readonly killSwitch: Gauge;
  readonly marketOpen: Gauge<'pair' | 'market'>;
  readonly nativeBalance: Gauge<'chain' | 'wallet'>;
  readonly nativeAlertLevel: Gauge<'chain' | 'wallet'>;
  readonly orderMessages: Gauge<'pair'>;
  readonly orderToTrade: Gauge<'pair'>;
}

export function loopMetrics(m: Metrics): LoopMetrics {
  return {
    quoteLatency: m.histogram({
      name: 'quote_latency_seconds',
      help: 'From the market event that triggered a recomputation to the first resulting transaction leaving the process',
      labelNames: ['pair'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    }),
    roundLatency: m.histogram({
      name: 'quote_round_seconds',
      help: 'From the market event that triggered a recomputation to the last new quote of that round leaving the process',
      labelNames: ['pair'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
    inclusionLatency: m.histogram({
      name: 'tx_inclusion_seconds',
      help: 'From a placement leaving the process to the chain settling it',
      labelNames: ['chain'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
    }),
    recomputes: m.counter({
      name: 'quote_recomputes_total',
      help: 'Quote recomputations by outcome',
      labelNames: ['pair', 'outcome'],
    }),
    actions: m.counter({
      name: 'quote_actions_total',
      help: 'Order actions sent by the strategy loop',
      labelNames: ['pair', 'type', 'result'],
    }),
    dropped: m.counter({
      name: 'quotes_dropped_total',
      help: 'Quotes dropped or changed on their way to the venue, by rule',
      labelNames: ['pair', 'rule'],
    }),
    rejections: m.counter({
      name: 'order_rejections_total',
      help: 'Our orders the venue or chain rejected, by reason',
      labelNames: ['pair', 'reason'],
    }),
    spread: m.gauge({
      name: 'quote_spread_bps',
      help: 'Distance between our best ask and best bid, in basis points of the mid',
      labelNames: ['pair'],
    }),
    killSwitch: m.gauge({ name: 'kill_switch', help: '1 once the kill switch has tripped (until restart)' }),
    orderMessages: m.gauge({
      name: 'order_messages_today',
      help: 'Placements and cancellations sent on the pair this trading day (the order-to-trade count)',
      labelNames: ['pair'],
    }),
    orderToTrade: m.gauge({
      name: 'order_to_trade_ratio',
      help: 'Order messages per trade of ours on the pair this trading day (over one before the first fill)',
      labelNames: ['pair'],
    }),
    marketOpen: m.gauge({
      name: 'market_open',
      help: '1 while the pair may trade: calendar (when enabled), trading status and order book phase all open; market is the symbol',
      labelNames: ['pair', 'market'],
    }),
    nativeBalance: m.gauge({
      name: 'native_balance',
      help: 'Native fee token balance of the wallet at its last read (human units)',
      labelNames: ['chain', 'wallet'],
    }),
    nativeAlertLevel: m.gauge({
      name: 'native_alert_level',
      help: 'Native fee balance below which the risk limits raise an alert (risk.nativeAlert; absent when none is set)',
      labelNames: ['chain', 'wallet'],
    }),
  };
}

/** Presence of our quotes per side, the trading mode, the position and the PnL of each pair, read at scrape time. */
export function derivePairGauges(
  m: Metrics,
  loops: ReadonlyMap<string, PairLoop>,
  mode: (pairId: string) => string,
  pnl: ReadonlyMap<string, PnlTracker>,
): void {
  const now = () => [...pnl].map(([pair, t]) => ({ pair, ...t.now() }));
  m.derivedGauge({ name: 'position_base', help: 'Base position from fills (human units)', labelNames: ['pair'] }, () =>
    now().map((p) => ({ labels: { pair: p.pair }, value: p.state.position.toNumber() })),
  );
  m.derivedGauge(
    {
      name: 'pnl_quote',
      help: 'PnL in quote units: realised, unrealised at the mark, fees, total',
      labelNames: ['pair', 'kind'],
    },
    () =>
      now().flatMap(({ pair, state, mark }) => [
        { labels: { pair, kind: 'realised' }, value: state.realised.toNumber() },
        { labels: { pair, kind: 'fees' }, value: state.fees.toNumber() },
        { labels: { pair, kind: 'unrealised' }, value: mark === null ? 0 : unrealised(state, mark).toNumber() },
        { labels: { pair, kind: 'total' }, value: totalPnl(state, mark).toNumber() },
      ]),
  );
  m.derivedGauge(
    {
      name: 'quote_presence',
      help: '1 while an order of ours rests on the side of the book',
      labelNames: ['pair', 'side'],
    },
    () =>
      [...loops].flatMap(([pair, loop]) => {
        const p = loop.presence();
        return [
          { labels: { pair, side: 'buy' }, value: p.buy ? 1 : 0 },
          { labels: { pair, side: 'sell' }, value: p.sell ? 1 : 0 },
        ];
      }),
  );
  m.derivedGauge(
    {
      name: 'trading_state',
      help: '1 for the current trading mode of the pair (active, paused, stopped, killed)',
      labelNames: ['pair', 'mode'],
    },
    () =>
      [...loops.keys()].flatMap((pair) => {
        const now = mode(pair);
        return TRADING_MODES.map((m) => ({ labels: { pair, mode: m }, value: m === now ? 1 : 0 }));
      }),
  );
}

const TRADING_MODES = ['active', 'paused', 'stopped', 'killed'] as const;

/** The spread of our best quotes, in basis points of their midpoint; unchanged when a side has none. */
export function recordSpread(
  metrics: LoopMetrics,
  pairId: string,
  quotes: readonly { readonly side: 'buy' | 'sell'; readonly price: Decimal }[],
): void {
  const bid = quotes
    .filter((q) => q.side === 'buy')
    .reduce<Decimal | null>((b, q) => (b === null || q.price.gt(b) ? q.price : b), null);
  const ask = quotes
    .filter((q) => q.side === 'sell')
    .reduce<Decimal | null>((a, q) => (a === null || q.price.lt(a) ? q.price : a), null);
  if (bid !== null && ask !== null)
    metrics.spread.set({ pair: pairId }, approxQuotient(ask.sub(bid).mul(20_000), ask.add(bid)).toNumber());
}

/** The wallet's native fee balance, and the level below which it alerts. */
export function recordNative(
  metrics: LoopMetrics,
  labels: { readonly chain: string; readonly wallet: string },
  native: Decimal,
  alertAt: Decimal | null,
): void {
  metrics.nativeBalance.set(labels, native.toNumber());
  if (alertAt !== null) metrics.nativeAlertLevel.set(labels, alertAt.toNumber());
}

/**
 * The latency from a market event to the first of a round's actions that left the process and to the last, as
 * each leaves (a placement is queued by the round and leaves later); nothing when none left.
 */
export function observeSends(
  metrics: LoopMetrics,
  pair: string,
  clock: { now(): number },
  marketEventMs: number,
  sends: readonly Promise<boolean>[],
): void {
  let first = true;
  const since = () => (clock.now() - marketEventMs) / 1000;
  for (const sent of sends)
    void sent.then((ok) => {
      if (!ok || !first) return;
      first = false;
      metrics.quoteLatency.observe({ pair }, since());
    });
  void Promise.all(sends).then((sent) => {
    if (sent.some(Boolean)) metrics.roundLatency.observe({ pair }, since());
  });
}
