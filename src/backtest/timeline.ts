/**
 * When each block or ledger of a chain is applied in a backtest. Recorded blocks come at their recorded time
 * and height, with the recorded transactions of others; between them the chain makes blocks at its interval,
 * as it did live (the recording saw nothing in them). Our transactions wait until the moment the latency model
 * gives them, then ride in the first block at or after it.
 */
import type { RecordedChainEvent } from '../store/recording-read.ts';
import { recordedEvent, type RecordedEvent, type SimChain, type SimPending } from './sim-chain.ts';

export interface RecordedBlock {
  readonly height: bigint;
  readonly timeMs: number;
  readonly txs: ReadonlyArray<{ readonly txHash: string; readonly pairId: string; readonly events: RecordedEvent[] }>;
}

/** A chain's recorded events as blocks in height order, each block's transactions in recorded order. */
export function recordedBlocks(events: readonly RecordedChainEvent[]): RecordedBlock[] {
  const blocks = new Map<
    bigint,
    { height: bigint; timeMs: number; txs: Map<string, { txHash: string; pairId: string; events: RecordedEvent[] }> }
  >();
  for (const e of events) {
    let b = blocks.get(e.height);
    if (b === undefined) {
      b = { height: e.height, timeMs: e.blockTimeMs, txs: new Map() };
      blocks.set(e.height, b);
    }
    let tx = b.txs.get(e.txHash);
    if (tx === undefined) {
      tx = { txHash: e.txHash, pairId: e.pairId, events: [] };
      b.txs.set(e.txHash, tx);
    }
    tx.events.push(recordedEvent(e.event));
  }
  return [...blocks.values()]
    .map((b) => ({ height: b.height, timeMs: b.timeMs, txs: [...b.txs.values()] }))
    .toSorted((a, b) => (a.height < b.height ? -1 : a.height > b.height ? 1 : 0));
}

export class ChainTimeline {
  readonly chain: SimChain;
  readonly #recorded: readonly RecordedBlock[];
  readonly #blockMs: number;
  readonly #pending: Array<{ readonly dueMs: number; readonly tx: SimPending }> = [];
  #next = 0;
  #lastHeight: bigint;
  #lastMs: number;

  constructor(chain: SimChain, recorded: readonly RecordedBlock[], blockMs: number, startMs: number) {
    this.chain = chain;
    this.#recorded = recorded;
    this.#blockMs = blockMs;
    const first = recorded[0];
    this.#lastHeight = first === undefined ? 0n : first.height - 1n;
    this.#lastMs = Math.min(startMs, first?.timeMs ?? startMs);
  }

  /** Our transaction, due at `dueMs`. */
  send(tx: SimPending, dueMs: number): void {
    this.#pending.push({ dueMs, tx });
  }

  /** Recorded blocks before `ms` are skipped (a backtest from a later time). */
  skipBefore(ms: number): void {
    while (this.#next < this.#recorded.length && (this.#recorded[this.#next] as RecordedBlock).timeMs < ms) {
      const b = this.#recorded[this.#next++] as RecordedBlock;
      this.#lastHeight = b.height;
      this.#lastMs = b.timeMs;
    }
  }

  /**
   * The next block the recording did not see: one block interval after the last, at the next height, unless a
   * recorded block comes by then. Blocks come at the chain's pace whether anything happens in them or not.
   */
  #synthetic(recordedUntilMs: number): { height: bigint; timeMs: number } | null {
    const rec = this.#recorded[this.#next];
    const timeMs = this.#lastMs + this.#blockMs;
    if (
      rec !== undefined &&
      rec.timeMs <= recordedUntilMs &&
      (rec.height <= this.#lastHeight + 1n || rec.timeMs <= timeMs)
    )
      return null;
    return { height: this.#lastHeight + 1n, timeMs };
  }

  /** When this chain's next block comes (recorded ones only up to `recordedUntilMs`); null when none will. */
  nextMs(recordedUntilMs: number): number | null {
    const rec = this.#recorded[this.#next];
    const recMs = rec !== undefined && rec.timeMs <= recordedUntilMs ? rec.timeMs : null;
    const syn = this.#synthetic(recordedUntilMs);
    if (recMs === null) return syn === null ? null : syn.timeMs;
    return syn === null ? recMs : Math.min(recMs, syn.timeMs);
  }

  /** Applies the next block (it is due now); returns the pairs it touched. */
  mineNext(recordedUntilMs: number): Set<string> {
    const rec = this.#recorded[this.#next];
    const syn = this.#synthetic(recordedUntilMs);
    const useRecorded =
      rec !== undefined && rec.timeMs <= recordedUntilMs && (syn === null || rec.timeMs <= syn.timeMs);
    const at = useRecorded ? { height: rec.height, timeMs: rec.timeMs } : (syn as { height: bigint; timeMs: number });
    if (useRecorded) this.#next++;
    const ours: SimPending[] = [];
    for (let i = 0; i < this.#pending.length;) {
      const p = this.#pending[i] as { dueMs: number; tx: SimPending };
      if (p.dueMs <= at.timeMs) {
        ours.push(p.tx);
        this.#pending.splice(i, 1);
      } else i++;
    }
    const block = this.chain.mine(at.height, at.timeMs, useRecorded ? rec.txs : [], ours);
    this.#lastHeight = block.height;
    this.#lastMs = block.timeMs;
    return new Set(block.txs.map((t) => t.pairId));
  }
}
