/** The series the order engine writes: applied and refused events, fills, alerts, pauses, inventory and recovery. */
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '../telemetry/metrics.ts';

export interface EngineMetrics {
  readonly eventsApplied: Counter<'chain' | 'event'>;
  readonly eventsRefused: Counter<'chain' | 'event'>;
  readonly fills: Counter<'chain' | 'pair' | 'role'>;
  readonly alerts: Counter<'chain' | 'kind'>;
  readonly inventoryMismatch: Gauge<'chain' | 'wallet' | 'token'>;
  readonly paused: Gauge<'chain' | 'pair'>;
  readonly commands: Counter<'chain' | 'command' | 'result'>;
  readonly unknownOutcomes: Gauge<'chain' | 'wallet'>;
  readonly liveOrders: Gauge<'chain' | 'wallet'>;
  readonly foreignOrders: Gauge<'chain' | 'wallet'>;
  readonly reconciliations: Counter<'chain' | 'result'>;
  readonly reconcileSeconds: Histogram<'chain'>;
  readonly followerLag: Gauge<'chain'>;
  readonly withdrawn: Counter<'chain' | 'kind'>;
}

export function engineMetrics(m: Metrics): EngineMetrics {
  return {
    eventsApplied: m.counter({ name: 'order_events_applied_total', help: 'Order events applied through the transition table', labelNames: ['chain', 'event'] }),
    eventsRefused: m.counter({
      name: 'order_events_refused_total',
      help: 'Order events the transition table refused (impossible transition, duplicate or oversized fill); nothing changed',
      labelNames: ['chain', 'event'],
    }),
    fills: m.counter({ name: 'fills_total', help: 'Fills of our orders, maker and taker', labelNames: ['chain', 'pair', 'role'] }),
    alerts: m.counter({ name: 'alerts_total', help: 'Alerts raised (mismatches, unexplained fills, foreign orders)', labelNames: ['chain', 'kind'] }),
    inventoryMismatch: m.gauge({
      name: 'inventory_mismatch',
      help: 'On-chain balance minus the balance derived from fills and locks, native units (0 when they agree)',
      labelNames: ['chain', 'wallet', 'token'],
    }),
    paused: m.gauge({ name: 'pair_paused', help: '1 while trading on the pair is paused by an open alert', labelNames: ['chain', 'pair'] }),
    commands: m.counter({ name: 'order_commands_total', help: 'Order commands by result', labelNames: ['chain', 'command', 'result'] }),
    unknownOutcomes: m.gauge({ name: 'orders_unknown_outcome', help: 'Orders whose submission fate the chain has not settled', labelNames: ['chain', 'wallet'] }),
    liveOrders: m.gauge({ name: 'orders_live', help: 'Orders that are or may be on the book', labelNames: ['chain', 'wallet'] }),
    foreignOrders: m.gauge({ name: 'foreign_orders', help: 'Resting orders of our wallets that are not ours', labelNames: ['chain', 'wallet'] }),
    reconciliations: m.counter({ name: 'reconciliations_total', help: 'Reconciliation runs by result', labelNames: ['chain', 'result'] }),
    reconcileSeconds: m.histogram({ name: 'reconcile_seconds', help: 'Duration of a reconciliation', labelNames: ['chain'], buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60] }),
    followerLag: m.gauge({ name: 'event_follower_behind', help: 'Blocks or ledgers the event follower is behind the head', labelNames: ['chain'] }),
    withdrawn: m.counter({
      name: 'reorg_withdrawals_total',
      help: 'Chain A transactions whose applied changes were withdrawn because a reorganisation removed their block (kind: place, cancel or events)',
      labelNames: ['chain', 'kind'],
    }),
  };
}
