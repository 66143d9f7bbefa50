/**
 * The price feeds: the document served is the true value of `delayMs` ago with its observation time, the
 * noise on the price has the configured standard deviation (none at 0), bonds carry their yield, and the
 * faults: down serves nothing, stale keeps serving the last document with its old timestamp.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { SeededRandom } from '../../../../src/sandbox/flow/random.ts';
import { PriceFeeds } from '../../../../src/sandbox/value/feeds.ts';

function setUp(noiseBps: number, delayMs = 1000) {
  let wall = 1_000_000;
  const feeds = new PriceFeeds({
    pairs: [
      { id: 'B', symbol: 'BOND26EURe' },
      { id: 'F', symbol: 'FUND1EURe' },
    ],
    delayMs,
    noiseBps,
    random: new SeededRandom(4),
    wallMs: () => wall,
  });
  /** One sample every 250 ms: the bond's value is 100 + i/100 at sample i, its yield 3 + i/1000. */
  let i = 0;
  const tick = () => {
    wall += 250;
    i++;
    feeds.observe('B', {
      wallMs: wall,
      sandboxMs: wall,
      value: new Decimal(100).add(i / 100),
      yieldPercent: new Decimal(3).add(i / 1000),
    });
    feeds.observe('F', { wallMs: wall, sandboxMs: wall, value: new Decimal('12.34'), yieldPercent: null });
  };
  return { feeds, tick, wall: () => wall };
}

describe('price feeds', () => {
  it('serve the value of delayMs ago, stamped with when it was observed', () => {
    const { feeds, tick, wall } = setUp(0);
    tick();
    // Younger than the delay: the first observation is all there is.
    expect(feeds.document('B')).toEqual({
      symbol: 'BOND26EURe',
      price: '100.01',
      timestamp: wall(),
      yield: '3.001',
    });
    for (let k = 0; k < 11; k++) tick();
    // Sample 12 is now; the one of 1000 ms ago is sample 8.
    expect(feeds.document('B')).toEqual({
      symbol: 'BOND26EURe',
      price: '100.08',
      timestamp: wall() - 1000,
      yield: '3.008',
    });
    expect(feeds.document('F')).toEqual({ symbol: 'FUND1EURe', price: '12.34', timestamp: wall() - 1000 });
  });

  it('add Gaussian noise of noiseBps to the price (one standard deviation), seeded', () => {
    const { feeds, tick } = setUp(2, 0);
    const deviations: number[] = [];
    for (let k = 0; k < 2000; k++) {
      tick();
      const doc = feeds.document('F');
      deviations.push(new Decimal(doc?.price ?? 0).div('12.34').sub(1).mul(10_000).toNumber());
    }
    const mean = deviations.reduce((a, b) => a + b, 0) / deviations.length;
    const sd = Math.sqrt(deviations.reduce((a, b) => a + (b - mean) ** 2, 0) / deviations.length);
    expect(Math.abs(mean)).toBeLessThan(0.2);
    expect(sd).toBeGreaterThan(1.8);
    expect(sd).toBeLessThan(2.2);
    const again = setUp(2, 0);
    again.tick();
    const first = setUp(2, 0);
    first.tick();
    expect(again.feeds.document('F')).toEqual(first.feeds.document('F'));
  });

  it('down serves nothing; stale keeps the last document with its old timestamp; clearing restores both', () => {
    const { feeds, tick, wall } = setUp(0);
    for (let k = 0; k < 8; k++) tick();
    const before = feeds.document('B');
    feeds.setFault('stale', 'B');
    feeds.setFault('down', 'F');
    for (let k = 0; k < 8; k++) tick();
    expect(feeds.document('B')).toEqual(before);
    expect(feeds.document('F')).toBeNull();
    expect(feeds.faults()).toEqual({ B: 'stale', F: 'down' });
    feeds.clearFaults();
    expect(feeds.document('B')?.timestamp).toBe(wall() - 1000);
    expect(feeds.document('F')?.timestamp).toBe(wall() - 1000);
    expect(feeds.faults()).toEqual({});
  });
});
