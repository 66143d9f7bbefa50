import { describe, expect, it } from 'vitest';
import { StalenessWatchdog } from '../../../src/venue/market-data/staleness-watchdog.ts';
import { TestClock, T0 } from '../../support/clock.ts';

function setup(staleAfterMs = 1_000) {
  const clock = new TestClock();
  const events: string[] = [];
  const dog = new StalenessWatchdog({
    staleAfterMs,
    clock,
    onStale: (s, at, had) => events.push(`stale ${s} at+${clock.now() - T0} last+${at - T0} ${had ? 'had' : 'none'}`),
    onFresh: (s) => events.push(`fresh ${s} at+${clock.now() - T0}`),
  });
  return { clock, events, dog };
}

describe('staleness watchdog', () => {
  it('a market with no message for the configured time is stale; its next message makes it fresh', () => {
    const { clock, events, dog } = setup();
    dog.watch('A');
    clock.advance(400);
    dog.seen('A');
    clock.advance(999);
    expect(dog.isStale('A')).toBe(false);
    clock.advance(1);
    expect(dog.isStale('A')).toBe(true);
    clock.advance(5_000);
    dog.seen('A');
    expect(dog.isStale('A')).toBe(false);
    clock.advance(1_000);
    expect(events).toEqual(['stale A at+1400 last+400 had', 'fresh A at+6400', 'stale A at+7400 last+6400 had']);
  });

  it('a market that never sends is stale after the limit from when watching began, and reported once', () => {
    const { clock, events, dog } = setup();
    dog.watch('B');
    clock.advance(10_000);
    expect(events).toEqual(['stale B at+1000 last+0 none']);
  });

  it('markets are independent, and an unwatched market is never reported', () => {
    const { clock, events, dog } = setup();
    dog.watch('A');
    dog.watch('B');
    dog.watch('C');
    dog.unwatch('C');
    for (let i = 0; i < 5; i++) {
      clock.advance(500);
      dog.seen('A');
    }
    expect(events).toEqual(['stale B at+1000 last+0 none']);
    expect(dog.isStale('A')).toBe(false);
    expect(clock.pendingDelays()).toEqual([500]);
  });
});
