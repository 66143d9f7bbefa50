/**
 * The series the order engine writes: applied and refused events, fills, alerts, inventory and recovery; and
 * the state gauges (live orders, unknown outcomes, foreign orders, paused pairs), read from the store at every
 * scrape so that they are right whenever they are read.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { isLive } from '../../core/order-state.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import { isPaused } from './alerts.ts';
import type { WalletContext } from './wallet-context.ts';

export interface EngineMetrics {
  readonly eventsApplied: Counter<'chain' | 'event'>;
  readonly eventsRefused: Counter<'chain' | 'event'>;
  readonly fills: Counter<'chain' | 'pair' | 'role'>;
  readonly alerts: Counter<'chain' | 'kind'>;
  readonly inventoryMismatch: Gauge<'chain' | 'wallet' | 'token'>;
  readonly commands: Counter<'chain' | 'command' | 'result'>;
  readonly reconciliations: Counter<'chain' | 'result'>;
  readonly reconcileSeconds: Histogram<'chain'>;
  readonly followerLag: Gauge<'chain'>;
  readonly withdrawn: Counter<'chain' | 'kind'>;
}

export function engineMetrics(m: Metrics): EngineMetrics {
  return {
    eventsApplied: m.counter({
      name: 'order_events_applied_total',
      help: 'Order events applied through the transition table',
      labelNames: ['chain', 'event'],
    }),
    eventsRefused: m.counter({
      name: 'order_events_refused_total',
      help: 'Order events the transition table refused (impossible transition, duplicate or oversized fill); nothing changed',
      labelNames: ['chain', 'event'],
    }),
    fills: m.counter({
      name: 'fills_total',
      help: 'Fills of our orders, maker and taker',
      labelNames: ['chain', 'pair', 'role'],
    }),
    alerts: m.counter({
      name: 'alerts_total',
      help: 'Alerts raised (mismatches, unexplained fills, foreign orders)',
      labelNames: ['chain', 'kind'],
    }),
    inventoryMismatch: m.gauge({
      name: 'inventory_mismatch',
      help: 'On-chain balance minus the balance derived from fills and locks, native units (0 when they agree)',
      labelNames: ['chain', 'wallet', 'token'],
    }),
    commands: m.counter({
      name: 'order_commands_total',
      help: 'Order commands by result',
      labelNames: ['chain', 'command', 'result'],
    }),
    reconciliations: m.counter({
      name: 'reconciliations_total',
      help: 'Reconciliation runs by result',
      labelNames: ['chain', 'result'],
    }),
    reconcileSeconds: m.histogram({
      name: 'reconcile_seconds',
      help: 'Duration of a reconciliation',
      labelNames: ['chain'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60],
    }),
    followerLag: m.gauge({
      name: 'event_follower_behind',
      help: 'Blocks or ledgers the event follower is behind the head',
      labelNames: ['chain'],
    }),
    withdrawn: m.counter({
      name: 'reorg_withdrawals_total',
      help: 'Chain A transactions whose applied changes were withdrawn because a reorganisation removed their block (kind: place, cancel or events)',
      labelNames: ['chain', 'kind'],
    }),
  };
}

/** The wallet's state gauges, derived from its store at scrape time. */
export function deriveStateGauges(m: Metrics, ctx: WalletContext): void {
  const labels = { chain: ctx.chain, wallet: ctx.wallet };
  // An order recorded but not signed yet (`intended`) cannot be on the book: it is not counted.
  m.derivedGauge(
    {
      name: 'orders_live',
      help: 'Orders that are or may be on the book (sent and not final)',
      labelNames: ['chain', 'wallet'],
    },
    () => [{ labels, value: ctx.repos.orders.live({ wallet: ctx.wallet }).filter((o) => isLive(o.status)).length }],
  );
  m.derivedGauge(
    {
      name: 'orders_unknown_outcome',
      help: 'Orders whose placement the chain has not settled after its outcome deadline',
      labelNames: ['chain', 'wallet'],
    },
    () => [
      { labels, value: ctx.repos.orders.live({ wallet: ctx.wallet }).filter((o) => o.status === 'unknown').length },
    ],
  );
  m.derivedGauge(
    {
      name: 'foreign_orders',
      help: 'Resting orders of our wallets that are not ours',
      labelNames: ['chain', 'wallet'],
    },
    () => [{ labels, value: ctx.repos.foreign.open(ctx.chain, ctx.wallet).length }],
  );
  m.derivedGauge(
    {
      name: 'pair_paused',
      help: '1 while trading on the pair is paused by an open alert',
      labelNames: ['chain', 'pair'],
    },
    () =>
      [...ctx.pairs.keys()].map((pair) => ({ labels: { chain: ctx.chain, pair }, value: isPaused(ctx, pair) ? 1 : 0 })),
  );
}

/** Whether the wallet may trade (with why not), and the block or ledger its events are applied up to. */
export function deriveWalletGauges(
  m: Metrics,
  ctx: WalletContext,
  readiness: { readonly current: { readonly ready: boolean; readonly reason: string } },
  tracker: { readonly covered: bigint | null },
): void {
  const labels = { chain: ctx.chain, wallet: ctx.wallet };
  m.derivedGauge(
    {
      name: 'wallet_ready',
      help: '1 when the wallet is reconciled and may trade; 0 with the reason it may not (an error code, reconciling, unsettled)',
      labelNames: ['chain', 'wallet', 'reason'],
    },
    () => [{ labels: { ...labels, reason: readiness.current.reason }, value: readiness.current.ready ? 1 : 0 }],
  );
  m.derivedGauge(
    {
      name: 'events_covered',
      help: 'Block (chain A) or ledger (chain B) up to which every event of the wallet has been applied to the state',
      labelNames: ['chain', 'wallet'],
    },
    () => {
      const height = tracker.covered;
      return height === null ? [] : [{ labels, value: Number(height) }];
    },
  );
}
