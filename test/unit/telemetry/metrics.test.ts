import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/telemetry/metrics.ts';

describe('metrics', () => {
  it('each instance has its own registry, so two bots never share a series', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.venue.restRequests.inc({ endpoint: '/tradingpairs', status: '200' });
    a.venue.restRequests.inc({ endpoint: '/tradingpairs', status: '200' });
    expect(await a.text()).toContain('dltmm_venue_rest_requests_total{endpoint="/tradingpairs",status="200"} 2');
    expect(await b.text()).not.toContain('endpoint="/tradingpairs"');
  });

  it('every metric name carries the dltmm_ prefix, including those other modules register', async () => {
    const m = createMetrics({ processMetrics: true });
    const orders = m.counter({ name: 'orders_placed_total', help: 'orders', labelNames: ['chain'] });
    orders.inc({ chain: 'evm' });
    m.gauge({ name: 'dltmm_inventory', help: 'inventory' }).set(3);
    m.histogram({ name: 'quote_latency_seconds', help: 'latency', buckets: [0.1, 1] }).observe(0.5);
    const names = m.registry.getMetricsAsArray().map((x) => x.name);
    expect(names).toContain('dltmm_orders_placed_total');
    expect(names).toContain('dltmm_inventory');
    expect(names).toContain('dltmm_quote_latency_seconds');
    expect(names.some((n) => n.startsWith('dltmm_process_'))).toBe(true);
    expect(names.filter((n) => !n.startsWith('dltmm_'))).toEqual([]);
  });

  it('registering the same name twice returns the same metric; another type is refused', () => {
    const m = createMetrics();
    const first = m.counter({ name: 'fills_total', help: 'fills' });
    expect(m.counter({ name: 'dltmm_fills_total', help: 'fills' })).toBe(first);
    expect(() => m.gauge({ name: 'fills_total', help: 'fills' })).toThrow(/another type/);
  });

  it('has the series the venue clients need', () => {
    const names = createMetrics()
      .registry.getMetricsAsArray()
      .map((x) => x.name)
      .toSorted();
    expect(names).toEqual([
      'dltmm_venue_auth_token_requests_total',
      'dltmm_venue_book_source_seconds_total',
      'dltmm_venue_book_ws_share',
      'dltmm_venue_fallback_polls_total',
      'dltmm_venue_malformed_payloads_total',
      'dltmm_venue_market_stale',
      'dltmm_venue_market_stale_transitions_total',
      'dltmm_venue_rest_errors_total',
      'dltmm_venue_rest_request_duration_seconds',
      'dltmm_venue_rest_requests_total',
      'dltmm_venue_rest_retries_total',
      'dltmm_venue_ticker_book_mismatch_total',
      'dltmm_venue_unknown_values_total',
      'dltmm_venue_ws_connected',
      'dltmm_venue_ws_keepalive_timeouts_total',
      'dltmm_venue_ws_messages_total',
      'dltmm_venue_ws_reconnects_total',
      'dltmm_venue_ws_subscription_failures_total',
    ]);
  });

  it('default labels mark every series of an instance', async () => {
    const m = createMetrics({ defaultLabels: { bot: 'mm-1' } });
    m.venue.wsReconnects.inc();
    expect(await m.text()).toContain('dltmm_venue_ws_reconnects_total{bot="mm-1"} 1');
  });
});
