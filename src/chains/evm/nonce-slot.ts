/**
 * One nonce of the wallet in flight: the command that took it, every signed transaction sent at it (the original,
 * fee-bumped replacements, the zero-value self-transfer that cancels it), and the two promises callers hold: the
 * outcome (which may settle as `unknown` at the deadline) and the final fate (only when the chain decided).
 */
import { DltError } from '../../core/errors.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Outcome } from '../types.ts';
import { errorFields } from '../venue-race.ts';
import type { EvmMetrics } from './metrics.ts';
import type { TxKind } from './options.ts';
import type { EvmRpc, Receipt } from './rpc-client.ts';
import type { SignedTx } from './tx-signer.ts';

export interface SlotCommand {
  readonly kind: TxKind;
  readonly clientOrderId: bigint | null;
  /** Pair, side, price, quantity, ids: what logs and errors say about the command. */
  readonly context: Readonly<Record<string, unknown>>;
  /** Read back from the journal after a restart (nobody awaits its outcome; `settle` asks for it). */
  readonly restored: boolean;
  /** Mined once, then dropped by a reorganisation: its nonce is taken back, the command not revived. */
  readonly orphaned?: boolean;
}

export interface Attempt {
  readonly signed: SignedTx;
  readonly role: 'original' | 'bump' | 'cancel';
  sentAtMs: number;
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export class NonceSlot {
  readonly nonce: bigint;
  readonly command: SlotCommand;
  readonly attempts: Attempt[] = [];
  readonly deadlineMs: number;
  /** The last broadcast's fate is unknown (no answer): it is sent again, byte for byte, at the next poll. */
  uncertain = false;
  /** Polls that found the nonce used on chain but none of our transactions mined. */
  missingPolls = 0;
  readonly #outcome = deferred<Outcome>();
  readonly #final = deferred<Outcome>();
  #reported = false;
  #settled = false;
  #waiters: { readonly deadlineMs: number; readonly resolve: (outcome: Outcome) => void }[] = [];

  constructor(nonce: bigint, command: SlotCommand, deadlineMs: number) {
    this.nonce = nonce;
    this.command = command;
    this.deadlineMs = deadlineMs;
  }

  get latest(): Attempt {
    return this.attempts.at(-1) as Attempt;
  }

  get bumps(): number {
    return this.attempts.filter((a) => a.role === 'bump').length;
  }

  get cancelling(): boolean {
    return this.attempts.some((a) => a.role === 'cancel');
  }

  get hashes(): string[] {
    return this.attempts.map((a) => a.signed.hash);
  }

  /** Settles at the chain's decision or with `unknown` at the deadline, whichever comes first. */
  get outcome(): Promise<Outcome> {
    return this.#outcome.promise;
  }

  /** Settles only with the chain's decision (or when the adapter closes). */
  get final(): Promise<Outcome> {
    return this.#final.promise;
  }

  get reported(): boolean {
    return this.#reported;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** The chain's decision, or `unknown` once the clock passes `deadlineMs` (checked at each receipt poll). */
  wait(deadlineMs: number): Promise<Outcome> {
    return new Promise((resolve) => {
      this.#waiters.push({ deadlineMs, resolve });
      void this.final.then(resolve);
    });
  }

  /** Answers every waiter whose deadline has passed with `unknown`; true when the outcome itself just became `unknown`. */
  expire(nowMs: number): boolean {
    const due = this.#waiters.filter((w) => nowMs >= w.deadlineMs);
    this.#waiters = this.#waiters.filter((w) => nowMs < w.deadlineMs);
    for (const w of due)
      w.resolve({ kind: 'unknown', txHash: this.latest.signed.hash, reason: 'not settled by the deadline' });
    if (nowMs < this.deadlineMs || this.#reported) return false;
    this.reportUnknown('not settled by the outcome deadline');
    return true;
  }

  reportUnknown(reason: string): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#outcome.resolve({ kind: 'unknown', txHash: this.latest.signed.hash, reason });
  }

  /** The adapter closes: whoever waits learns that the fate is unknown (the journal keeps the nonce). */
  abandon(reason: string): void {
    this.reportUnknown(reason);
    this.#final.resolve({ kind: 'unknown', txHash: this.latest.signed.hash, reason });
  }

  settle(outcome: Outcome): void {
    this.#settled = true;
    this.#final.resolve(outcome);
    if (!this.#reported) {
      this.#reported = true;
      this.#outcome.resolve(outcome);
    }
  }
}

/** The outcome of a nonce a transaction this bot did not send took: ours never applied. */
export function supersededOutcome(slot: NonceSlot): Outcome {
  const error = new DltError(
    'E_CHAIN_TX_EXPIRED',
    `nonce ${slot.nonce} was used by a transaction this bot did not send; ours never applied`,
    { details: { ...slot.command.context, reason: 'superseded', nonce: slot.nonce.toString(), hashes: slot.hashes } },
  );
  return { kind: 'rejected', txHash: slot.latest.signed.hash, included: false, error };
}

/** Counts and logs how the chain settled a nonce. */
export function reportSettled(
  deps: { readonly metrics: EvmMetrics | null; readonly logger: Logger },
  slot: NonceSlot,
  outcome: Outcome,
): void {
  const label =
    outcome.kind === 'rejected' && outcome.error.code === 'E_CHAIN_TX_EXPIRED'
      ? String(outcome.error.details.reason ?? 'expired')
      : outcome.kind;
  deps.metrics?.submissions.inc({
    kind: slot.command.kind,
    outcome: label === 'cancelled' ? 'expired' : label,
  });
  deps.logger.info(
    {
      ...slot.command.context,
      kind: slot.command.kind,
      nonce: slot.nonce.toString(),
      txHash: outcome.txHash,
      outcome: outcome.kind,
      ...(outcome.kind === 'rejected' ? errorFields(outcome.error) : {}),
    },
    `chain A ${slot.command.kind} settled: ${label}`,
  );
}

/** What the chain made of a slot: the outcome of whichever of its transactions was mined, and what it cost. */
export interface Mined {
  readonly outcome: Outcome;
  readonly hash: string;
  readonly status: 'included' | 'failed';
  readonly fee: bigint | null;
}

/** The receipt of whichever of the slot's transactions was mined, as its outcome; null when none has one yet. */
export async function minedAttempt(
  slot: NonceSlot,
  deps: {
    readonly rpc: Pick<EvmRpc, 'receipt'>;
    readonly outcomeOf: (receipt: Receipt, slot: NonceSlot, mined: Attempt) => Promise<Outcome>;
  },
): Promise<Mined | null> {
  for (const attempt of slot.attempts.toReversed()) {
    const receipt = await deps.rpc.receipt(attempt.signed.hash);
    if (receipt === null) continue;
    const outcome = await deps.outcomeOf(receipt, slot, attempt);
    const price = receipt.effectiveGasPrice;
    const fee = price === null || price === undefined ? null : receipt.gasUsed * price;
    return { outcome, hash: attempt.signed.hash, status: receipt.status === 1 ? 'included' : 'failed', fee };
  }
  return null;
}
