/**
 * Whether a market-data connection is alive (see ws-client.ts): first the wait for its `connection_ack`,
 * then the keep-alive watch, which drops a connection that delivered nothing for the acknowledged timeout.
 * Any frame counts as heard.
 */
import type { Clock, Timer } from '../../core/clock.ts';

export class Liveness {
  readonly #clock: Clock;
  #timer: Timer | undefined;
  #lastHeardAt = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** A frame arrived (or the connection opened). */
  heard(): void {
    this.#lastHeardAt = this.#clock.now();
  }

  /** `onMissing` runs unless the acknowledgement cancels the wait within `ackMs`. */
  awaitAck(ackMs: number, onMissing: () => void): void {
    this.#timer = this.#clock.setTimer(onMissing, ackMs);
  }

  cancel(): void {
    this.#timer?.cancel();
  }

  /**
   * Calls `onSilent` once nothing has been heard for `timeoutMs` (re-armed for the time left) while
   * `current()` holds. The verdict is confirmed one timer turn later: after a pause of this process (a long
   * GC, a busy machine) timers run before the frames that arrived meanwhile are read, and those frames must
   * count.
   */
  watch(timeoutMs: number, current: () => boolean, onSilent: () => void): void {
    const quiet = this.#clock.now() - this.#lastHeardAt;
    const silent = () => this.#clock.now() - this.#lastHeardAt >= timeoutMs;
    this.#timer = this.#clock.setTimer(
      () => {
        if (!current()) return;
        if (!silent()) return this.watch(timeoutMs, current, onSilent);
        this.#timer = this.#clock.setTimer(() => {
          if (!current()) return;
          if (!silent()) return this.watch(timeoutMs, current, onSilent);
          onSilent();
        }, 0);
      },
      Math.max(0, timeoutMs - quiet),
    );
  }
}
