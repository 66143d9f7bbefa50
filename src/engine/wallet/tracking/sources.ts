/** The chain transaction (and block) a change comes from, for the changes a reorganisation may withdraw. */
import type { Outcome, ChainEvent } from '../../../chains/types.ts';
import type { ChangeSource } from '../../../store/order-store.ts';

/** The source of one transaction's events: chain A events name their block; chain B ledgers are final (null). */
export function sourceOfEvents(events: readonly ChainEvent[]): ChangeSource | null {
  const e = events[0];
  if (e === undefined || e.blockHash === null) return null;
  return { txHash: e.txHash, blockHash: e.blockHash, height: e.height };
}

/** The source of an outcome read from a chain A receipt; null for anything else. */
export function sourceOfOutcome(outcome: Outcome): ChangeSource | null {
  if (outcome.kind === 'unknown' || outcome.block === undefined || outcome.txHash === null) return null;
  return { txHash: outcome.txHash, blockHash: outcome.block.hash, height: outcome.block.height };
}
