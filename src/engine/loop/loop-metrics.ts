/** The series the strategy loop writes: quote latency, actions, spread and presence, PnL, trading state. */
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '../../telemetry/metrics.ts';

export interface LoopMetrics {
  readonly quoteLatency: Histogram<'pair'>;
  readonly roundLatency: Histogram<'pair'>;
  readonly inclusionLatency: Histogram<'chain'>;
  readonly recomputes: Counter<'pair' | 'outcome'>;
  readonly actions: Counter<'pair' | 'type' | 'result'>;
  readonly dropped: Counter<'pair' | 'rule'>;
  readonly rejections: Counter<'pair' | 'reason'>;
  readonly spread: Gauge<'pair'>;
  readonly presence: Gauge<'pair' | 'side'>;
  readonly position: Gauge<'pair'>;
  readonly pnl: Gauge<'pair' | 'kind'>;
  readonly tradingState: Gauge<'pair' | 'mode'>;
  readonly killSwitch: Gauge;
  readonly marketOpen: Gauge<'pair' | 'market'>;
  readonly nativeBalance: Gauge<'chain' | 'wallet'>;
  readonly nativeAlertLevel: Gauge<'chain' | 'wallet'>;
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
    recomputes: m.counter({ name: 'quote_recomputes_total', help: 'Quote recomputations by outcome', labelNames: ['pair', 'outcome'] }),
    actions: m.counter({ name: 'quote_actions_total', help: 'Order actions sent by the strategy loop', labelNames: ['pair', 'type', 'result'] }),
    dropped: m.counter({ name: 'quotes_dropped_total', help: 'Quotes dropped or changed on their way to the venue, by rule', labelNames: ['pair', 'rule'] }),
    rejections: m.counter({ name: 'order_rejections_total', help: 'Our orders the venue or chain rejected, by reason', labelNames: ['pair', 'reason'] }),
    spread: m.gauge({ name: 'quote_spread_bps', help: 'Distance between our best ask and best bid, in basis points of the mid', labelNames: ['pair'] }),
    presence: m.gauge({ name: 'quote_presence', help: '1 while we have a live quote on the side', labelNames: ['pair', 'side'] }),
    position: m.gauge({ name: 'position_base', help: 'Base position from fills (human units)', labelNames: ['pair'] }),
    pnl: m.gauge({ name: 'pnl_quote', help: 'PnL in quote units: realised, unrealised at the mark, fees, total', labelNames: ['pair', 'kind'] }),
    tradingState: m.gauge({ name: 'trading_state', help: '1 for the current trading mode of the pair (active, paused, stopped, killed)', labelNames: ['pair', 'mode'] }),
    killSwitch: m.gauge({ name: 'kill_switch', help: '1 once the kill switch has tripped (until restart)' }),
    marketOpen: m.gauge({
      name: 'market_open',
      help: '1 while the pair may trade: calendar (when enabled), trading status and order book phase all open; market is the symbol',
      labelNames: ['pair', 'market'],
    }),
    nativeBalance: m.gauge({ name: 'native_balance', help: 'Native fee token balance of the wallet at its last read (human units)', labelNames: ['chain', 'wallet'] }),
    nativeAlertLevel: m.gauge({
      name: 'native_alert_level',
      help: 'Native fee balance below which the risk limits raise an alert (risk.nativeAlert; absent when none is set)',
      labelNames: ['chain', 'wallet'],
    }),
  };
}
