/** The order-to-trade count of a pair's trading day and the limits it enforces before signing. */
import { describe, expect, it } from 'vitest';
import { OrderTradeCount } from '../../../../src/engine/risk/order-trade.ts';

const limits = { maxOrderMessagesPerDay: 10, maxOrderToTradeRatio: 4 };

describe('order-to-trade count', () => {
  it('counts messages over executions of the day, and starts again at a new day', () => {
    const c = new OrderTradeCount();
    c.roll('2026-03-02', 7);
    c.message(3);
    c.roll('2026-03-02', 8);
    expect([c.messages, c.executions, c.ratio]).toEqual([3, 1, 3]);
    c.roll('2026-03-03', 8);
    expect([c.messages, c.executions, c.ratio]).toEqual([0, 0, 0]);
  });

  it('holds placements back at the daily message cap and at the ratio limit; slows replacements from 80 % of it', () => {
    const c = new OrderTradeCount();
    c.roll('2026-03-02', 0);
    c.message(3);
    expect([c.placement(limits).ok, c.slow(limits)]).toEqual([true, false]);
    c.message(1);
    expect(c.placement(limits)).toMatchObject({ ok: false, rule: 'maxOrderToTradeRatio' });
    c.roll('2026-03-02', 2);
    expect([c.placement(limits).ok, c.slow(limits)]).toEqual([true, false]);
    c.message(3);
    expect([c.ratio, c.placement(limits).ok, c.slow(limits)]).toEqual([3.5, true, true]);
    c.roll('2026-03-02', 5);
    c.message(3);
    expect(c.placement(limits)).toMatchObject({ ok: false, rule: 'maxOrderMessagesPerDay' });
  });
});
