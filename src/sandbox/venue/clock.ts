/**
 * The sandbox venue's clock: what the trading calendar, REST timestamps, candles, 24 h windows and the
 * WebSocket `time` read. Three modes: `real` (wall time), `accelerated` (sandbox time runs `speed` times
 * faster than the wall clock from a start instant) and `manual` (time moves only by `advance` / `set`, for
 * tests). An accelerated clock stands at its start instant until `begin()` (the sandbox calls it once ready),
 * so that the seconds of start-up do not become hours of sandbox time. Every mode can be moved forward by hand; time never goes backwards, because the scheduler fires
 * the calendar's boundaries between the previous and the current reading.
 *
 * The chains keep their own time: the chain A node stamps blocks with wall time and the chain B emulator
 * closes ledgers on wall time, so transaction time bounds built by ordinary clients stay valid.
 */
import { DltError } from '../../core/errors.ts';

export type ClockMode = 'real' | 'accelerated' | 'manual';

export interface SandboxClockOptions {
  readonly mode?: ClockMode;
  /** Sandbox milliseconds per wall millisecond in accelerated mode; default 60. */
  readonly speed?: number;
  /** Sandbox time at start (epoch ms); default the wall clock. */
  readonly startMs?: number;
  /** The wall clock, injectable for tests. */
  readonly wallMs?: () => number;
}

export interface ClockState {
  readonly mode: ClockMode;
  readonly speed: number;
  readonly nowMs: number;
  readonly now: string;
}

export class SandboxClock {
  readonly mode: ClockMode;
  readonly speed: number;
  readonly #wall: () => number;
  #wallStart: number;
  #running: boolean;
  readonly #start: number;
  #offset = 0;
  /** The largest reading handed out, so that a reading never goes backwards. */
  #last = Number.NEGATIVE_INFINITY;

  constructor(options: SandboxClockOptions = {}) {
    this.mode = options.mode ?? 'real';
    this.speed = this.mode === 'accelerated' ? (options.speed ?? 60) : 1;
    if (!(Number.isFinite(this.speed) && this.speed > 0)) {
      throw new DltError('E_SANDBOX', `clock speed must be a positive number, got ${options.speed}`, {
        details: { part: 'clock' },
      });
    }
    this.#wall = options.wallMs ?? Date.now;
    this.#wallStart = this.#wall();
    this.#start = options.startMs ?? this.#wallStart;
    this.#running = this.mode === 'real';
  }

  /** Lets an accelerated clock run from now on (from its start instant); nothing for the other modes. */
  begin(): void {
    if (this.#running || this.mode !== 'accelerated') return;
    this.#wallStart = this.#wall();
    this.#running = true;
  }

  nowMs(): number {
    let t: number;
    if (!this.#running) t = this.#start + this.#offset;
    else t = this.#start + Math.floor((this.#wall() - this.#wallStart) * this.speed) + this.#offset;
    if (t < this.#last) t = this.#last;
    this.#last = t;
    return t;
  }

  /** Moves sandbox time forward by `ms` (>= 0). */
  advance(ms: number): number {
    if (!(Number.isFinite(ms) && ms >= 0)) {
      throw new DltError('E_SANDBOX', `the clock only moves forward; cannot advance by ${ms} ms`, {
        details: { part: 'clock', ms },
      });
    }
    this.#offset += Math.round(ms);
    return this.nowMs();
  }

  /** Sets sandbox time to `ms`, which must not be before the current time. */
  set(ms: number): number {
    const now = this.nowMs();
    if (!Number.isFinite(ms))
      throw new DltError('E_SANDBOX', `clock time must be a finite epoch millisecond value, got ${ms}`, {
        details: { part: 'clock' },
      });
    if (ms < now) {
      throw new DltError(
        'E_SANDBOX',
        `the clock only moves forward; ${new Date(ms).toISOString()} is before ${new Date(now).toISOString()}`,
        {
          details: { part: 'clock', ms, now },
        },
      );
    }
    return this.advance(ms - now);
  }

  state(): ClockState {
    const nowMs = this.nowMs();
    return { mode: this.mode, speed: this.speed, nowMs, now: new Date(nowMs).toISOString() };
  }
}
