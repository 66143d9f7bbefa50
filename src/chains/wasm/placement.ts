/**
 * One chain B placement: encoded (a bad order is refused before anything is signed), its allowance prepared
 * by the keeper (on a pre-funded book the need is reserved while its outcome is open, so the orders of one
 * ledger on different sources are covered together), then sent. Placements are sent side by side: the
 * allowance step (the check and the reservation together) runs in its allowance's lane, one at a time, so two
 * placements never count on the same allowance; the reservation is given back when nothing was sent. A
 * simulation that refuses it for the allowance means the figure was wrong: it is read again and the placement
 * tried once more.
 */
import { formatDecimal } from '../../core/decimal.ts';
import { encodeOrder } from '../../core/encoding/order-codec.ts';
import { DltError, isDltError } from '../../core/errors.ts';
import type { PairBinding, PlaceCommand, Submission, TokenRole } from '../types.ts';
import type { AllowanceKeeper, Reservation } from './allowances.ts';
import { placeCall } from './calls.ts';
import type { TxIntent } from './sender.ts';
import type { Submissions } from './submissions.ts';

export interface PlacementDeps {
  readonly wallet: string;
  readonly submissions: Submissions;
  readonly keeper: AllowanceKeeper;
  /** Whether the book takes an order's tokens at placement. */
  readonly isPrefunded: (pair: PairBinding) => Promise<boolean>;
  /** Runs the allowance steps of placements (and approvals) of one allowance one after another. */
  readonly inLane: <T>(pair: PairBinding, role: TokenRole, work: () => Promise<T>) => Promise<T>;
  /** Aborted when the adapter closes. */
  readonly closing: AbortSignal;
}

export function notOurs(pairId: string, details: Record<string, unknown>): DltError {
  return new DltError('E_PAIR_INVALID', `pair ${pairId} is not a chain B pair`, { details });
}

export async function placeOrder(deps: PlacementDeps, command: PlaceCommand, startedMs: number): Promise<Submission> {
  const context = {
    pair: command.pair.pairId,
    side: command.terms.side,
    price: formatDecimal(command.terms.price),
    quantity: formatDecimal(command.terms.quantity),
    clientOrderId: command.clientOrderId.toString(),
  };
  if (command.pair.chain !== 'wasm') return deps.submissions.refuse('place', notOurs(command.pair.pairId, context));
  let call;
  try {
    call = placeCall(
      command.pair.orderBook,
      deps.wallet,
      encodeOrder('wasm', command.terms, command.pair.rules.scales, command.clientOrderId, command.reporting),
    );
  } catch (e) {
    if (!isDltError(e)) throw e;
    return deps.submissions.refuse('place', e, context);
  }
  const intent: TxIntent = { kind: 'place', call, clientOrderId: command.clientOrderId, context, startedMs };
  const signal = command.signal === undefined ? deps.closing : AbortSignal.any([deps.closing, command.signal]);
  for (let attempt = 0; ; attempt++) {
    if (command.signal?.aborted === true) return deps.submissions.withdrawn(context, command.signal.reason);
    // Its need counts in a top-up made while it waits for its turn (its own step no longer counts it).
    const waited = deps.keeper.waiting(command.pair, command.approval.token, command.approval.amount);
    const step = await deps
      .inLane(command.pair, command.approval.token, () => {
        waited();
        return allowanceStep(deps, command);
      })
      .finally(waited);
    if (step instanceof DltError) return deps.submissions.refuse('place', step, context);
    const submission = await deps.submissions.send(intent, command.pair, null, signal);
    // Taken when it applies: reserved until its outcome settles (given back at once if nothing was sent).
    const reservation = step.reservation;
    if (reservation !== null) void submission.outcome.then((o) => deps.keeper.settle(reservation, o));
    if (submission.txHash === null && attempt === 0) {
      // Refused by simulation: if for the allowance, the figure was wrong; read it again and retry once.
      const early = await submission.outcome;
      if (early.kind === 'rejected' && early.error.code === 'E_VENUE_INSUFFICIENT_ALLOWANCE') {
        if (reservation !== null) deps.keeper.settle(reservation, early);
        deps.keeper.invalidate(command.pair, command.approval.token);
        continue;
      }
    }
    return submission;
  }
}

/** The allowance check and, when it passes, the reservation, together: the error that stops the order, if any. */
async function allowanceStep(
  deps: PlacementDeps,
  command: PlaceCommand,
): Promise<DltError | { readonly reservation: Reservation | null }> {
  let prefunded = true;
  try {
    prefunded = await deps.isPrefunded(command.pair);
    const blocked = await deps.keeper.prepare(command.pair, command.approval, prefunded, command.committed ?? 0n);
    if (blocked !== null) return blocked;
  } catch (e) {
    if (!isDltError(e)) throw e;
    return e;
  }
  const { token, amount } = command.approval;
  return { reservation: deps.keeper.reserve(command.pair, token, amount, prefunded) };
}
