import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { resolveLimits } from '../../../../src/engine/risk/limits.ts';
import { RiskMonitor, type RiskEvent } from '../../../../src/engine/risk/monitor.ts';

const d = (s: string) => new Decimal(s);

function monitor(limits = {}) {
  const m = new RiskMonitor();
  const events: RiskEvent[] = [];
  m.onEvent((e) => events.push(e));
  const l = resolveLimits({
    staleMarketDataMs: 1000,
    maxConsecutiveFailures: 3,
    failureBackoffMs: 100,
    failureBackoffMaxMs: 250,
    ...limits,
  });
  m.addPair('a', 'w1', l, 0);
  m.addPair('b', 'w2', l, 0);
  return { m, events };
}

describe('risk monitor', () => {
  it('pulls quotes on stale market data and resumes on fresh data', () => {
    const { m } = monitor();
    expect(m.state('a', 1000)).toEqual({ mode: 'active' });
    expect(m.state('a', 1001)).toMatchObject({ mode: 'paused', reasons: ['stale-market-data'] });
    m.marketData('a', 1500);
    expect(m.state('a', 1600)).toEqual({ mode: 'active' });
  });
  it('backs off exponentially on failed transactions, resets on success, and stops after too many', () => {
    const { m, events } = monitor();
    m.marketData('a', 0);
    m.txFailed('a', 0, 'revert');
    expect(m.state('a', 50)).toEqual({ mode: 'paused', reasons: ['tx-backoff'], untilMs: 100 });
    expect(m.state('a', 100)).toEqual({ mode: 'active' });
    m.txFailed('a', 100, 'revert');
    expect(m.state('a', 250)).toMatchObject({ untilMs: 300 });
    m.txSucceeded('a');
    m.txFailed('a', 300, 'x');
    expect(m.state('a', 350)).toMatchObject({ untilMs: 400 });
    m.txFailed('a', 400, 'x');
    m.txFailed('a', 500, 'nonce');
    expect(m.state('a', 10_000)).toEqual({
      mode: 'stopped',
      reason: '3 consecutive transaction failures (last: nonce)',
    });
    expect(events).toEqual([
      { type: 'stopped', pairId: 'a', reason: '3 consecutive transaction failures (last: nonce)' },
    ]);
    m.marketData('b', 10_000);
    expect(m.state('b', 10_000)).toEqual({ mode: 'active' });
  });
  it('a refusal because the book was not open backs off once and never counts towards the stop', () => {
    const { m, events } = monitor();
    m.marketData('a', 0);
    for (let i = 0; i < 10; i++) m.marketNotOpen('a', 0);
    expect(m.state('a', 50)).toEqual({ mode: 'paused', reasons: ['tx-backoff'], untilMs: 100 });
    expect(m.state('a', 100)).toEqual({ mode: 'active' });
    expect(events).toEqual([]);
  });
  it('trips the global kill switch on the daily loss limit and stays killed', () => {
    const { m, events } = monitor({ dailyLossLimit: '50' });
    m.pnl('a', '2026-11-23', d('100'));
    m.pnl('a', '2026-11-23', d('60'));
    expect(m.killed).toBeNull();
    m.pnl('a', '2026-11-23', d('50'));
    expect(m.state('b', 0)).toMatchObject({ mode: 'killed', reason: 'a: daily loss 50 reached the limit 50' });
    m.pnl('a', '2026-11-23', d('500'));
    expect(m.state('a', 0).mode).toBe('killed');
    expect(events.filter((e) => e.type === 'killed')).toHaveLength(1);
  });
  it('measures the daily loss from the start of each day', () => {
    const { m } = monitor({ dailyLossLimit: '50' });
    m.pnl('a', '2026-11-23', d('100'));
    m.pnl('a', '2026-11-23', d('70'));
    m.pnl('a', '2026-11-24', d('70'));
    m.pnl('a', '2026-11-24', d('30'));
    expect(m.killed).toBeNull();
    m.pnl('a', '2026-11-24', d('20'));
    expect(m.killed).toMatch(/daily loss 50/);
  });
  it('trips on drawdown from the highest PnL seen', () => {
    const { m } = monitor({ maxDrawdown: '30' });
    m.pnl('a', 'd1', d('0'));
    m.pnl('a', 'd1', d('100'));
    m.pnl('a', 'd2', d('75'));
    expect(m.killed).toBeNull();
    m.pnl('a', 'd2', d('70'));
    expect(m.killed).toBe('a: drawdown 30 reached the limit 30');
  });
  it("alerts on a low native balance and stops the wallet's pairs below the stop level", () => {
    const { m, events } = monitor({ nativeAlert: '1', nativeStop: '0.1' });
    m.nativeBalance('w1', d('0.5'));
    expect(events).toEqual([{ type: 'native-low', wallet: 'w1', balance: d('0.5'), level: 'alert' }]);
    m.marketData('a', 0);
    expect(m.state('a', 0).mode).toBe('active');
    m.nativeBalance('w1', d('0.05'));
    expect(m.state('a', 0)).toMatchObject({ mode: 'stopped' });
    expect(m.state('b', 0).mode).toBe('active');
  });
  it('keeps the last native fee balance read of each wallet', () => {
    const { m } = monitor({ nativeAlert: '1', nativeStop: '0.1' });
    expect(m.nativeBalanceOf('w1')).toBeNull();
    m.nativeBalance('w1', d('2.5'));
    m.nativeBalance('w1', d('2.25'));
    expect(m.nativeBalanceOf('w1')).toEqual(d('2.25'));
    expect(m.nativeBalanceOf('w2')).toBeNull();
  });
  it('external pauses hold until lifted', () => {
    const { m } = monitor();
    m.setFlag('a', 'market-closed', true);
    m.setFlag('a', 'inventory-mismatch', true);
    expect(m.state('a', 0)).toEqual({
      mode: 'paused',
      reasons: ['inventory-mismatch', 'market-closed'],
      untilMs: null,
    });
    m.setFlag('a', 'market-closed', false);
    m.setFlag('a', 'inventory-mismatch', false);
    expect(m.state('a', 0)).toEqual({ mode: 'active' });
  });
});
