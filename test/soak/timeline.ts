/**
 * When each block and ledger became visible: chain B ledgers as the emulator closes them (this process hosts
 * it), chain A blocks as a tight poll of the node's head first sees them (the time is an upper bound, late by at
 * most one poll, which errs in the bot's favour when a classification asks whether it could have seen a block).
 * Waiters are woken on every new block or ledger, so the harness awaits heights instead of sleeping.
 */
import { rpc } from '../../src/sandbox/evm/node.ts';
import type { Sandbox } from '../../src/sandbox/venue/sandbox.ts';
import type { Chain } from './model.ts';

const EVM_POLL_MS = 25;

export class Timeline {
  readonly published: Record<Chain, Map<number, number>> = { evm: new Map(), wasm: new Map() };
  readonly head: Record<Chain, number> = { evm: -1, wasm: -1 };
  readonly #listeners = new Set<(chain: Chain, height: number) => void>();
  readonly #evmUrl: string;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly #unlisten: () => void;

  constructor(sandbox: Sandbox) {
    this.#evmUrl = sandbox.evmNode.rpcUrl;
    this.#see('wasm', sandbox.emulator.latest.seq);
    this.#unlisten = sandbox.emulator.onLedgerClosed((closed) => this.#see('wasm', closed.ledger.seq));
  }

  async start(): Promise<void> {
    await this.#poll();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#unlisten();
  }

  async #poll(): Promise<void> {
    try {
      this.#see('evm', Number(BigInt((await rpc(this.#evmUrl, 'eth_blockNumber', [])) as string)));
    } catch {
      // The node is stopping or busy: the next poll tells.
    }
    if (!this.#stopped) this.#timer = setTimeout(() => void this.#poll(), EVM_POLL_MS);
  }

  #see(chain: Chain, height: number): void {
    if (height <= this.head[chain]) return;
    const now = Date.now();
    for (let h = this.head[chain] < 0 ? height : this.head[chain] + 1; h <= height; h++)
      this.published[chain].set(h, now);
    this.head[chain] = height;
    for (const l of [...this.#listeners]) l(chain, height);
  }

  /** Resolves once `ready()` holds, checked now and at every new block or ledger; rejects at the deadline. */
  when(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = () => {
        if (!ready()) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${what}: not within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
      };
      this.#listeners.add(listener);
    });
  }

  /** Resolves once both chains have moved on by the given numbers of blocks and ledgers. */
  pass(blocks: Readonly<Record<Chain, number>>, timeoutMs = 60_000): Promise<void> {
    const from = { ...this.head };
    return this.when(
      `${blocks.evm} blocks and ${blocks.wasm} ledgers`,
      () => this.head.evm - from.evm >= blocks.evm && this.head.wasm - from.wasm >= blocks.wasm,
      timeoutMs,
    );
  }
}
