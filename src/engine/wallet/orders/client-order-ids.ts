/**
 * Client order ids travel on chain as the uint32 cross identifier, so that our orders are recognisable on
 * the venue after any crash or loss of state. The high byte is this bot instance's tag, the low 24 bits a
 * durable per-wallet counter that hands out each number once (it is stored before the order is signed).
 * Cross identifier 0, or any other high byte, is not ours.
 */
import { DltError } from '../../../core/errors.ts';
import type { StateStore } from '../../../store/state-store.ts';

/** 0xD1 ("dlt"): the default tag; give each bot instance trading the same wallets its own. */
export const DEFAULT_CROSS_ID_TAG = 0xd1;
const LOW_BITS = 24n;
const LOW_MASK = (1n << LOW_BITS) - 1n;
const LAST = Number(LOW_MASK);

export class ClientOrderIds {
  readonly #state: StateStore;
  readonly #tag: bigint;
  readonly #counter: string;

  constructor(state: StateStore, wallet: string, tag: number = DEFAULT_CROSS_ID_TAG) {
    if (!Number.isInteger(tag) || tag < 1 || tag > 255) {
      throw new DltError(
        'E_USAGE',
        `cross identifier tag ${tag} must be 1..255 (0 would make ordinary orders look like ours)`,
        { details: { tag } },
      );
    }
    this.#state = state;
    this.#tag = BigInt(tag);
    this.#counter = `cross-id:${wallet}:${tag}`;
  }

  get tag(): number {
    return Number(this.#tag);
  }

  /** The next id; durable before it is returned. */
  next(): bigint {
    return (this.#tag << LOW_BITS) | BigInt(this.#state.nextCounter(this.#counter, 1, LAST));
  }

  isOurs(crossId: bigint): boolean {
    return crossId >> LOW_BITS === this.#tag && (crossId & LOW_MASK) !== 0n;
  }

  /** True while this wallet's counter has never handed out an id here: a fresh state file. */
  get fresh(): boolean {
    return !this.#state.hasCounter(this.#counter);
  }

  /**
   * The ids the chain shows for the wallet (a fresh state file): the counter starts above the highest of ours, and
   * exists from now on even when none is ours. Returns that highest id (0 for none).
   */
  startAbove(seen: readonly bigint[]): bigint {
    const highest = seen.filter((id) => this.isOurs(id)).reduce((a, b) => (b > a ? b : a), 0n);
    this.#state.raiseCounter(this.#counter, Number(highest & LOW_MASK));
    return highest;
  }

  /** An id of ours found on the venue: the counter moves past it so that it is never handed out again. */
  adopt(crossId: bigint): void {
    if (this.isOurs(crossId)) this.#state.raiseCounter(this.#counter, Number(crossId & LOW_MASK));
  }
}
