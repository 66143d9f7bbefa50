/** A round run again and again, a pause between rounds, until stopped: what the book taps of both chains share. */
import type { Sleep } from '../core/clock.ts';
import type { Logger } from '../telemetry/logger.ts';

export class Polling {
  readonly #round: () => Promise<void>;
  readonly #options: {
    readonly sleep: Sleep;
    readonly pollIntervalMs: number;
    readonly logger: Logger;
    readonly what: string;
  };
  readonly #abort = new AbortController();
  #loop: Promise<void> | null = null;

  constructor(
    round: () => Promise<void>,
    options: { readonly sleep: Sleep; readonly pollIntervalMs: number; readonly logger: Logger; readonly what: string },
  ) {
    this.#round = round;
    this.#options = options;
  }

  /** Aborted once stopped: a round checks it to end early. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop?.catch(() => undefined);
  }

  async #run(): Promise<void> {
    while (!this.#abort.signal.aborted) {
      try {
        await this.#round();
      } catch (e) {
        this.#options.logger.warn({ err: e }, `${this.#options.what} round failed; retrying at the next poll`);
      }
      await this.#options.sleep(this.#options.pollIntervalMs, this.#abort.signal).catch(() => undefined);
    }
  }
}
