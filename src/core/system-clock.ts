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
