/** Follower batches: the events of one batch grouped by transaction. */
import type { ChainEvent } from '../../../chains/types.ts';

/** Consecutive events of one transaction, in chain order. */
export function byTransaction(events: readonly ChainEvent[]): ChainEvent[][] {
  const out: ChainEvent[][] = [];
  for (const e of events) {
    const last = out.at(-1);
    if (last !== undefined && last[0]?.txHash === e.txHash) last.push(e);
    else out.push([e]);
  }
  return out;
}
