/**
 * The wallet's nonces, handed out locally so that many transactions are in flight at once, in the order the
 * commands arrive. A number goes back only when the node refused its transaction outright (nothing was
 * accepted with it, and no later number was handed out meanwhile: sending is serial); a number whose fate is
 * unknown stays taken until the chain settles it. A resync reads the node's pending count and never moves
 * below a number still in flight.
 */
import type { Logger } from '../../telemetry/logger.ts';
import type { EvmMetrics } from './metrics.ts';
import type { EvmRpc } from './rpc-client.ts';

export type ResyncReason = 'nonce_too_low' | 'underpriced' | 'nonce_too_high' | 'superseded';

export class NonceSequencer {
  readonly #rpc: EvmRpc;
  readonly #wallet: string;
  readonly #metrics: EvmMetrics | null;
  readonly #logger: Logger;
  #next: bigint | null = null;

  constructor(rpc: EvmRpc, wallet: string, metrics: EvmMetrics | null, logger: Logger) {
    this.#rpc = rpc;
    this.#wallet = wallet;
    this.#metrics = metrics;
    this.#logger = logger;
  }

  get ready(): boolean {
    return this.#next !== null;
  }

  /** The next number to hand out (for tests and logs). */
  get next(): bigint | null {
    return this.#next;
  }

  /** Starts from the node's pending count, above every nonce the journal holds unsettled. */
  async init(unsettled: Iterable<bigint>): Promise<void> {
    const pending = await this.#rpc.transactionCount(this.#wallet, 'pending');
    this.#next = above(pending, unsettled);
    this.#logger.info(
      { wallet: this.#wallet, pending: pending.toString(), next: this.#next.toString() },
      'chain A nonces ready',
    );
  }

  allocate(): bigint {
    if (this.#next === null) throw new Error('nonce sequencer used before init');
    const n = this.#next;
    this.#next = n + 1n;
    return n;
  }

  /** Gives back the number just handed out, whose transaction the node refused outright. */
  release(nonce: bigint): void {
    if (this.#next !== nonce + 1n)
      throw new Error(`nonce ${nonce} is not the last one handed out (next ${this.#next})`);
    this.#next = nonce;
  }

  /**
   * Reloads the pending count after the node disagreed with a number; the next number is the pending count or
   * above the highest number still in flight, whichever is higher. Returns the node's pending count.
   */
  async resync(reason: ResyncReason, inFlight: Iterable<bigint>): Promise<bigint> {
    const pending = await this.#rpc.transactionCount(this.#wallet, 'pending');
    const before = this.#next;
    this.#next = above(pending, inFlight);
    this.#metrics?.nonceResyncs.inc({ reason });
    this.#logger.warn(
      {
        wallet: this.#wallet,
        reason,
        pending: pending.toString(),
        before: before?.toString(),
        next: this.#next.toString(),
      },
      'chain A nonce resync',
    );
    return pending;
  }
}

function above(pending: bigint, taken: Iterable<bigint>): bigint {
  let next = pending;
  for (const n of taken) if (n + 1n > next) next = n + 1n;
  return next;
}
