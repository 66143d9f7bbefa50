/**
 * The chain A adapter's series. Labels are bounded: `kind` is the command kind, `outcome` one of a few words,
 * `method` an RPC method name, `name` a revert name of the venue's error table, `source` where a malformed
 * payload was seen.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '../../telemetry/metrics.ts';

export interface EvmMetrics {
  /** Submissions by kind and outcome: accepted, rejected (reverted or refused by the node), refused (before signing), expired, superseded, unknown. */
  readonly submissions: Counter<'kind' | 'outcome'>;
  /** Reverts (simulated or mined) by error name. */
  readonly reverts: Counter<'name'>;
  /** Transactions re-signed at the same nonce: fee_bump, cancel (zero-value self-transfer). */
  readonly replacements: Counter<'reason'>;
  /** Nonces reloaded from the node, by reason (nonce_too_low, underpriced, nonce_too_high, superseded). */
  readonly nonceResyncs: Counter<'reason'>;
  readonly rpcErrors: Counter<'method' | 'kind'>;
  readonly inFlight: Gauge;
  readonly followerLag: Gauge;
  readonly reorgRollbacks: Counter;
  readonly followerGaps: Counter;
  readonly malformed: Counter<'source'>;
  readonly eventsDelivered: Counter<'type'>;
  readonly placeToSend: Histogram<'kind'>;
}

export function createEvmMetrics(m: Metrics): EvmMetrics {
  return {
    submissions: m.counter({
      name: 'evm_submissions_total',
      help: 'Chain A submissions by kind and outcome',
      labelNames: ['kind', 'outcome'],
    }),
    reverts: m.counter({
      name: 'evm_reverts_total',
      help: 'Chain A reverts (simulated or mined) by error name',
      labelNames: ['name'],
    }),
    replacements: m.counter({
      name: 'evm_replacements_total',
      help: 'Chain A transactions replaced at the same nonce, by reason',
      labelNames: ['reason'],
    }),
    nonceResyncs: m.counter({
      name: 'evm_nonce_resyncs_total',
      help: 'Chain A nonces reloaded from the node, by reason',
      labelNames: ['reason'],
    }),
    rpcErrors: m.counter({
      name: 'evm_rpc_errors_total',
      help: 'Chain A RPC calls that failed, by method and kind',
      labelNames: ['method', 'kind'],
    }),
    inFlight: m.gauge({ name: 'evm_nonces_in_flight', help: 'Chain A nonces sent and not yet settled' }),
    followerLag: m.gauge({
      name: 'evm_follower_lag_blocks',
      help: 'Blocks between the chain A event follower and the node head',
    }),
    reorgRollbacks: m.counter({
      name: 'evm_reorg_rollbacks_total',
      help: 'Chain A reorganisations that withdrew tentative events',
    }),
    followerGaps: m.counter({
      name: 'evm_follower_gaps_total',
      help: 'Chain A confirmed cursors whose block changed (full reconciliation needed)',
    }),
    malformed: m.counter({
      name: 'evm_malformed_total',
      help: 'Chain A logs or RPC replies that did not decode and were skipped',
      labelNames: ['source'],
    }),
    eventsDelivered: m.counter({
      name: 'evm_events_delivered_total',
      help: 'Chain A events decoded and delivered, by type',
      labelNames: ['type'],
    }),
    placeToSend: m.histogram({
      name: 'evm_place_to_send_seconds',
      help: 'Chain A time from the command to the signed transaction being handed to the transport',
      labelNames: ['kind'],
      buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
    }),
  };
}
