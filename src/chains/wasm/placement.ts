/**
 * One chain B placement: encoded (a bad order is refused before anything is signed), its allowance prepared
 * by the keeper (on a pre-funded book the need is reserved while its outcome is open, so the orders of one
 * ledger on different sources are covered together), then sent. A simulation that refuses it for the
 * allowance means the figure was wrong: it is read again and the placement tried once more.
 */
import { formatDecimal } from '../../core/decimal.ts';
import { encodeOrder } from '../../core/encoding/order-codec.ts';
import { DltError, isDltError } from '../../core/errors.ts';
import type { PairBinding, PlaceCommand, Submission } from '../types.ts';
import type { AllowanceKeeper } from './allowances.ts';
import { placeCall } from './calls.ts';
import type { TxIntent } from './sender.ts';
import type { Submissions } from './submissions.ts';

export interface PlacementDeps {
  readonly wallet: string;
  readonly submissions: Submissions;
  readonly keeper: AllowanceKeeper;
  /** Whether the book takes an order's tokens at placement. */
  readonly isPrefunded: (pair: PairBinding) => Promise<boolean>;
  /** Aborted when the adapter closes. */
  readonly closing: AbortSignal;
}

export function notOurs(pairId: string, details: Record<string, unknown>): DltError {
  return new DltError('E_PAIR_INVALID', `pair ${pairId} is not a chain B pair`, { details });
}

export async function placeOrder(d: PlacementDeps, c: PlaceCommand, startedMs: number): Promise<Submission> {
  const context = {
    pair: c.pair.pairId,
    side: c.terms.side,
    price: formatDecimal(c.terms.price),
    quantity: formatDecimal(c.terms.quantity),
    clientOrderId: c.clientOrderId.toString(),
  };
  if (c.pair.chain !== 'wasm') return d.submissions.refuse('place', notOurs(c.pair.pairId, context));
  let call;
  try {
    call = placeCall(
      c.pair.orderBook,
      d.wallet,
      encodeOrder('wasm', c.terms, c.pair.rules.scales, c.clientOrderId, c.reporting),
    );
  } catch (e) {
    if (!isDltError(e)) throw e;
    return d.submissions.refuse('place', e, context);
  }
  const intent: TxIntent = { kind: 'place', call, clientOrderId: c.clientOrderId, context, startedMs };
  const signal = c.signal === undefined ? d.closing : AbortSignal.any([d.closing, c.signal]);
  for (let attempt = 0; ; attempt++) {
    if (c.signal?.aborted === true) return d.submissions.withdrawn(context, c.signal.reason);
    let blocked: DltError | null;
    let prefunded = true;
    try {
      prefunded = await d.isPrefunded(c.pair);
      blocked = await d.keeper.prepare(c.pair, c.approval, prefunded, c.committed ?? 0n);
    } catch (e) {
      if (!isDltError(e)) throw e;
      blocked = e;
    }
    if (blocked !== null) return d.submissions.refuse('place', blocked, context);
    const submission = await d.submissions.send(intent, c.pair, null, signal);
    if (submission.txHash === null && attempt === 0) {
      // Refused by simulation: if for the allowance, the figure was wrong; read it again and retry once.
      const early = await submission.outcome;
      if (early.kind === 'rejected' && early.error.code === 'E_VENUE_INSUFFICIENT_ALLOWANCE') {
        d.keeper.invalidate(c.pair, c.approval.token);
        continue;
      }
    }
    if (submission.txHash !== null) {
      // Taken when it applies: reserved until its outcome settles, so the orders of one ledger are covered together.
      const reservation = d.keeper.reserve(c.pair, c.approval.token, c.approval.amount, prefunded);
      if (reservation !== null) void submission.outcome.then((o) => d.keeper.settle(reservation, o));
    }
    return submission;
  }
}
