/**
 * The wall clock: the one module of the project that reads the system time and sets real timers. The
 * composition root hands it out; everything else receives a `Clock`.
 */
import { sleepOn, type Clock } from './clock.ts';

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, ms);
    // A pending retry, watchdog or poll must not keep a finished process alive.
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
  setRepeating(fn, ms) {
    const handle = setInterval(fn, ms);
    handle.unref();
    return { cancel: () => clearInterval(handle) };
  },
  sleep: sleepOn((fn, ms) => {
    // A sleep keeps the process alive, as a plain setTimeout would: whoever awaits it is still working.
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle) };
  }),
};

let anchor = { wallMs: Date.now(), monotonicMs: performance.now() };
let lastMicros = 0;

/**
 * The wall clock in epoch microseconds (the audit record's UTC time): the monotonic clock's microseconds,
 * anchored to the wall clock and anchored again whenever the two part by a millisecond (the system clock was
 * set or slewed), so that a value always falls within the millisecond `Date.now()` reads. Within that
 * millisecond it never goes back: after anchoring again behind a value already given, the same value is given
 * until the clocks pass it.
 */
export function wallMicros(): number {
  const wall = Date.now();
  let at = anchor.wallMs + (performance.now() - anchor.monotonicMs);
  if (at < wall || at >= wall + 1) {
    anchor = { wallMs: wall, monotonicMs: performance.now() };
    at = wall;
  }
  lastMicros = Math.max(Math.floor(at * 1000), Math.min(lastMicros, wall * 1000 + 999));
  return lastMicros;
}
