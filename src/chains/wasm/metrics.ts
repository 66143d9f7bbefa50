/**
 * The chain B adapter's series. Labels are bounded: `kind` is the command kind, `outcome` one of a few
 * words, `method` an RPC method name, `source` where a malformed payload was seen.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '../../telemetry/metrics.ts';

export interface WasmMetrics {
  /** Submissions by command kind and outcome: accepted, rejected, refused (before signing), unknown. */
  readonly submissions: Counter<'kind' | 'outcome'>;
  readonly tryAgainLater: Counter;
  /** Sequence numbers reloaded from the node, by reason (bad_seq, try_again_later, not_applied, unknown). */
  readonly sequenceResyncs: Counter<'reason'>;
  /** RPC calls that failed, by method and kind (transport, rpc, malformed). */
  readonly rpcErrors: Counter<'method' | 'kind'>;
  readonly followerLag: Gauge;
  readonly followerGaps: Counter;
  /** Events (or RPC replies) that did not decode and were skipped, by where they were seen. */
  readonly malformed: Counter<'source'>;
  readonly eventsDelivered: Counter<'type'>;
  readonly placeToSend: Histogram<'kind'>;
  readonly simulation: Histogram;
}

export function createWasmMetrics(m: Metrics): WasmMetrics {
  return {
    submissions: m.counter({
      name: 'wasm_submissions_total',
      help: 'Chain B submissions by command kind and outcome',
      labelNames: ['kind', 'outcome'],
    }),
    tryAgainLater: m.counter({
      name: 'wasm_try_again_later_total',
      help: 'Chain B sendTransaction answers TRY_AGAIN_LATER',
    }),
    sequenceResyncs: m.counter({
      name: 'wasm_sequence_resyncs_total',
      help: 'Chain B source sequence numbers reloaded from the node, by reason',
      labelNames: ['reason'],
    }),
    rpcErrors: m.counter({
      name: 'wasm_rpc_errors_total',
      help: 'Chain B RPC calls that failed, by method and kind',
      labelNames: ['method', 'kind'],
    }),
    followerLag: m.gauge({
      name: 'wasm_follower_lag_ledgers',
      help: 'Ledgers between the chain B event follower cursor and the node head',
    }),
    followerGaps: m.counter({
      name: 'wasm_follower_gaps_total',
      help: 'Chain B event cursors found outside the retention window',
    }),
    malformed: m.counter({
      name: 'wasm_malformed_total',
      help: 'Chain B events or RPC replies that did not decode and were skipped',
      labelNames: ['source'],
    }),
    eventsDelivered: m.counter({
      name: 'wasm_events_delivered_total',
      help: 'Chain B events decoded and delivered, by type',
      labelNames: ['type'],
    }),
    placeToSend: m.histogram({
      name: 'wasm_place_to_send_seconds',
      help: 'Chain B time from the command to the signed transaction being sent',
      labelNames: ['kind'],
      buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    }),
    simulation: m.histogram({
      name: 'wasm_simulation_seconds',
      help: 'Chain B simulateTransaction round trips',
      buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
    }),
  };
}
