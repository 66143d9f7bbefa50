/**
 * The board redrawn in place on a terminal. `log-update` does the terminal side: it rewrites only the lines
 * that changed, inside the terminal's synchronized-output mode, clips a frame taller than the terminal and
 * hides the cursor while the board is up. This module decides what is drawn and when: on every tick of the
 * timer it is given, and at once on demand (a resize, the last frame at exit).
 */
import { createLogUpdate } from 'log-update';
import type { BoardModel } from './model.ts';
import { renderBoard } from './render.ts';

/** A terminal output: what `process.stdout` is when it is a TTY. */
export interface TerminalStream extends NodeJS.WritableStream {
  readonly columns?: number;
  readonly rows?: number;
  readonly isTTY?: boolean;
}

/** Calls `fn` every `ms` milliseconds until the returned function is called. */
export type Every = (ms: number, fn: () => void) => () => void;

export interface LiveBoardOptions {
  readonly stream: TerminalStream;
  /** The bot's state now. */
  readonly snapshot: () => BoardModel;
  readonly every: Every;
  readonly intervalMs: number;
  readonly color: boolean;
  /** Called once if a frame cannot be drawn (the board then shows the error instead). */
  readonly onError: (e: unknown) => void;
}

export class LiveBoard {
  readonly #options: LiveBoardOptions;
  readonly #screen: ReturnType<typeof createLogUpdate>;
  #cancel: (() => void) | null = null;
  #failed = false;
  #closed = false;

  constructor(options: LiveBoardOptions) {
    this.#options = options;
    this.#screen = createLogUpdate(options.stream as NodeJS.WriteStream);
  }

  start(): void {
    if (this.#cancel !== null || this.#closed) return;
    this.draw();
    this.#cancel = this.#options.every(this.#options.intervalMs, () => this.draw());
  }

  /** Draws the current state now. */
  draw(): void {
    if (this.#closed) return;
    this.#screen(this.#frame());
  }

  #frame(): string {
    const width = Math.max(20, this.#options.stream.columns ?? 80);
    try {
      return renderBoard(this.#options.snapshot(), { width, color: this.#options.color }).join('\n');
    } catch (e) {
      if (!this.#failed) this.#options.onError(e);
      this.#failed = true;
      return `dlt-mm: the board cannot be drawn (${e instanceof Error ? e.message : String(e)}); the log has the details`.slice(
        0,
        width,
      );
    }
  }

  /** The terminal is gone (its output fails): stops drawing without writing anything more. */
  detach(): void {
    this.#cancel?.();
    this.#cancel = null;
    this.#closed = true;
  }

  /** Draws the last frame, leaves it on the screen (later output goes below it) and shows the cursor again. */
  stop(): void {
    if (this.#closed) return;
    this.#cancel?.();
    this.#cancel = null;
    this.draw();
    this.#closed = true;
    this.#screen.done();
  }
}
