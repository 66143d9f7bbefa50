/**
 * What a wallet's parts tell one another, and what the engine tells its users. The parts are built in an
 * order in which each receives what it calls directly; a part that must ask one built after it (the applier
 * asking the manager to cancel, the chain's answer about a withdrawn outcome going to the settler) raises a
 * signal the engine subscribes to once every part exists.
 */
import type { ChainEvent, Outcome } from '../../chains/types.ts';

export class Signal<T> {
  readonly #listeners = new Set<(value: T) => void>();

  /** Calls `listener` with every value raised from now on, until the returned function is called. */
  on(listener: (value: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(value: T): void {
    for (const l of [...this.#listeners]) l(value);
  }
}

/** Something may have changed for these pairs: a follower batch was applied, or a submission's outcome settled. */
export interface WalletActivity {
  readonly pairIds: readonly string[];
  readonly cause: 'events' | 'outcome';
}

/** The chain answered again about a transaction whose outcome a reorganisation withdrew. */
export interface OutcomeAnswer {
  readonly clientOrderId: bigint;
  readonly kind: 'place' | 'cancel';
  readonly outcome: Outcome;
}

export interface WalletSignals {
  /** Orders to cancel (candidates of parked maker fills), raised after the change that asks for it committed. */
  readonly cancelRequested: Signal<readonly bigint[]>;
  /** The chain's new answer about a withdrawn outcome, for the settler to apply. */
  readonly outcomeAnswered: Signal<OutcomeAnswer>;
  /** An order whose outcome was withdrawn: its open transaction is to be asked about again. */
  readonly settleAgain: Signal<bigint>;
  /** The events stopped following on from the last applied: a reconciliation is due. */
  readonly gap: Signal<void>;
  readonly activity: Signal<WalletActivity>;
  /** Confirmed events, after the engine applied them (our orders are then known by their venue ids). */
  readonly confirmedEvents: Signal<readonly ChainEvent[]>;
}

export function walletSignals(): WalletSignals {
  return {
    cancelRequested: new Signal(),
    outcomeAnswered: new Signal(),
    settleAgain: new Signal(),
    gap: new Signal(),
    activity: new Signal(),
    confirmedEvents: new Signal(),
  };
}
