/** The order-to-trade count of a pair's trading day and the limits it enforces before signing. */
import * as fc from 'fast-check';
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
    c.roll('2026-03-02', 8);
    c.roll('2026-03-03', 8);
    expect([c.messages, c.executions, c.ratio]).toEqual([0, 0, 0]);
  });

  it('holds a placement back unless it, its cancellation and those of the live orders fit; slows from 80 %', () => {
    const c = new OrderTradeCount();
    c.roll('2026-03-02', 0);
    expect(c.placement(limits, 0).ok).toBe(true);
    c.message(1);
    // 1 sent + this one + its cancel + the live one's cancel = 4 messages for (at least) one trade: at the limit.
    expect(c.placement(limits, 1).ok).toBe(true);
    c.message(1);
    expect(c.placement(limits, 2)).toMatchObject({ ok: false, rule: 'maxOrderToTradeRatio' });
    expect(c.slow(limits)).toBe(false);
    c.roll('2026-03-02', 2);
    expect(c.placement(limits, 2).ok).toBe(true);
    c.message(5);
    expect([c.ratio, c.slow(limits)]).toEqual([3.5, true]);
    c.roll('2026-03-02', 4);
    expect(c.placement(limits, 2)).toMatchObject({ ok: false, rule: 'maxOrderMessagesPerDay' });
    expect(c.placement(limits, 1).ok).toBe(true);
  });

  it('whatever fills and cancellations follow, the day never goes over a limit: cancelling everything always fits', () => {
    const step = fc.constantFrom('place', 'replace', 'cancel', 'fill');
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 300 }),
        fc.integer({ min: 4, max: 60 }),
        fc.integer({ min: 2, max: 6 }),
        (steps, cap, ratio) => {
          const l = { maxOrderMessagesPerDay: cap, maxOrderToTradeRatio: ratio };
          const c = new OrderTradeCount();
          let live = 0;
          let fills = 0;
          c.roll('2026-03-02', fills);
          for (const s of steps) {
            if ((s === 'place' || s === 'replace') && (s === 'place' || live > 0) && c.placement(l, live).ok) {
              // A replacement is the new order and the cancellation of the one it replaces.
              c.message(s === 'place' ? 1 : 2);
              if (s === 'place') live += 1;
            } else if (s === 'cancel' && live > 0) {
              c.message(1);
              live -= 1;
            } else if (s === 'fill' && live > 0) {
              live -= 1;
              fills += 1;
              c.roll('2026-03-02', fills);
            }
            // Cancelling every live order now stays within both limits.
            const worst = c.messages + live;
            expect(worst).toBeLessThanOrEqual(cap);
            expect(worst / Math.max(1, c.executions)).toBeLessThanOrEqual(ratio);
          }
        },
      ),
    );
  });
});
