/**
 * Block headers by number, for the chain time of events and the hashes the follower checks. Bounded; a
 * reorganisation invalidates everything from the fork up, and a caller that knows the expected hash gets a
 * fresh read when the cached one differs.
 */
import { rpcFailure } from './json-rpc.ts';
import type { BlockHeader, EvmRpc } from './rpc-client.ts';

export class BlockCache {
  readonly #rpc: EvmRpc;
  readonly #max: number;
  readonly #headers = new Map<bigint, BlockHeader>();

  constructor(rpc: EvmRpc, max = 1024) {
    this.#rpc = rpc;
    this.#max = max;
  }

  /** The header at `number`; `expectedHash` forces a fresh read when the cached header has another hash. */
  async header(number: bigint, expectedHash?: string): Promise<BlockHeader> {
    const cached = this.#headers.get(number);
    if (cached !== undefined && (expectedHash === undefined || cached.hash === expectedHash)) return cached;
    const h = await this.#rpc.block(number);
    if (h === null) throw rpcFailure('eth_getBlockByNumber', 'malformed', `the node does not have block ${number}`);
    this.remember(h);
    return h;
  }

  remember(h: BlockHeader): void {
    if (this.#headers.size >= this.#max) {
      const oldest = this.#headers.keys().next().value as bigint;
      this.#headers.delete(oldest);
    }
    this.#headers.set(h.number, h);
  }

  /** Forgets every header at or above `number` (after a reorganisation). */
  forgetFrom(number: bigint): void {
    for (const n of [...this.#headers.keys()]) if (n >= number) this.#headers.delete(n);
  }
}
