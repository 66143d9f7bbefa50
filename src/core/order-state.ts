/**
 * The life of one of our orders as one exhaustive transition table. Every event is checked against the table
 * and the order's numbers before anything changes: an impossible transition, a duplicate fill or a fill larger
 * than what remains is refused (and the caller logs it), never applied.
 *
 *   intended -> submitting -> unknown -> received -> resting | partiallyFilled | filled
 *                          \-----------/          \-> rejected (remainder or whole order)
 *   resting | partiallyFilled -> cancelRequested -> cancelled (by participant, admin or contract)
 *   resting | partiallyFilled | cancelRequested -(not on the book)-> cancelRequested, with no cancel pending:
 *     the chain said it is gone (filled or cancelled in a block whose events have not arrived yet); it is
 *     never cancelled again, and those events decide how it left
 *   intended | submitting | unknown -> rejected (refused before signing, reverted, never included)
 */
import type { ErrorCode } from './errors.ts';
import type { CancellationType, Side } from './order-terms.ts';

export type OrderStatus =
  | 'intended'
  | 'submitting'
  | 'unknown'
  | 'received'
  | 'resting'
  | 'partiallyFilled'
  | 'cancelRequested'
  | 'filled'
  | 'cancelled'
  | 'rejected';

export const ORDER_STATUSES: readonly OrderStatus[] = [
  'intended',
  'submitting',
  'unknown',
  'received',
  'resting',
  'partiallyFilled',
  'cancelRequested',
  'filled',
  'cancelled',
  'rejected',
];

const statuses = (...list: OrderStatus[]): ReadonlySet<OrderStatus> => new Set(list);

/** Statuses the order never leaves. */
export const TERMINAL_STATUSES = statuses('filled', 'cancelled', 'rejected');
/** Statuses in which the order may be on the book (or may land there). */
export const LIVE_STATUSES = statuses(
  'submitting',
  'unknown',
  'received',
  'resting',
  'partiallyFilled',
  'cancelRequested',
);
const CANCELLABLE = statuses('resting', 'partiallyFilled');
const ON_BOOK = statuses('resting', 'partiallyFilled', 'cancelRequested');
const UNSETTLED = statuses('intended', 'submitting', 'unknown', 'received');
const QUOTING = statuses('submitting', 'unknown', 'received', 'resting', 'partiallyFilled');
const AWAITING_PLACEMENT = statuses('submitting', 'unknown');

/** Filled, cancelled or rejected: nothing changes it any more. */
export const isTerminal = (status: OrderStatus): boolean => TERMINAL_STATUSES.has(status);
/** May be on the book or may land there: sent and not yet terminal. */
export const isLive = (status: OrderStatus): boolean => LIVE_STATUSES.has(status);
/** Rests on the book with no cancel on its way: a cancel may be sent. */
export const isCancellable = (status: OrderStatus): boolean => CANCELLABLE.has(status);
/** Known to have rested and not known to be gone: it holds its funds on the book (a cancel may be on its way). */
export const isOnBook = (status: OrderStatus): boolean => ON_BOOK.has(status);
/** Recorded but not known to have rested or left: its placement is still being decided. */
export const isUnsettled = (status: OrderStatus): boolean => UNSETTLED.has(status);
/** Sent and quoting for us: on the book or on its way there, with no cancel requested. */
export const isQuoting = (status: OrderStatus): boolean => QUOTING.has(status);
/** The placement left the process and the chain has not given the order an id yet. */
export const isAwaitingPlacement = (status: OrderStatus): boolean => AWAITING_PLACEMENT.has(status);

export type OrderEvent =
  /** The signed placement left the process. */
  | { readonly type: 'SubmissionSent'; readonly txHash: string }
  /** Refused before signing (venue rule, risk limit) or by the node before inclusion. */
  | { readonly type: 'Refused'; readonly code: ErrorCode; readonly reason: string }
  /** The broadcast's fate is not known yet. */
  | { readonly type: 'OutcomeUnknown'; readonly reason: string }
  /** `OrderReceived`: the contract took the order and gave it an id. */
  | { readonly type: 'Accepted'; readonly orderId: bigint }
  /** The placement never applied: reverted, failed, or proven never included. */
  | { readonly type: 'SubmissionFailed'; readonly code: ErrorCode; readonly reason: string }
  /** The remainder rests (`NewBuyOrder` / `NewSellOrder`). */
  | { readonly type: 'Rested'; readonly quantity: bigint }
  /** An execution of this order, as taker (its own trade event) or maker (attributed from transfers). */
  | {
      readonly type: 'Filled';
      readonly fillId: string;
      readonly quantity: bigint;
      readonly price: bigint;
      readonly role: 'maker' | 'taker';
    }
  /** `OrderRejected`: all of it (nothing filled) or the remainder after fills. */
  | { readonly type: 'RemainderRejected'; readonly reason: number; readonly quantity: bigint }
  | { readonly type: 'CancelSent'; readonly txHash: string }
  /** The cancellation transaction failed; the order is still on the book as far as we know. */
  | { readonly type: 'CancelFailed'; readonly code: ErrorCode; readonly reason: string }
  /**
   * A cancellation (simulated or mined) found the order no longer on the book: it was filled or cancelled in a
   * block or ledger whose events have not been applied yet. It leaves for good: nothing cancels it again, and
   * its fill or cancellation events settle it.
   */
  | { readonly type: 'NotOnBook'; readonly code: ErrorCode; readonly reason: string }
  /** `CancelOrder`: the remaining quantity left the book. */
  | { readonly type: 'Cancelled'; readonly by: CancellationType; readonly quantity: bigint };

export type OrderEventType = OrderEvent['type'];

export interface OrderRecord {
  readonly clientOrderId: bigint;
  readonly pairId: string;
  readonly side: Side;
  /** Raw internal units. */
  readonly quantity: bigint;
  readonly price: bigint;
  readonly status: OrderStatus;
  readonly orderId: bigint | null;
  readonly filled: bigint;
  /** Fill ids applied so far, to refuse duplicates. */
  readonly fillIds: readonly string[];
  readonly txHash: string | null;
  readonly cancelTxHash: string | null;
  readonly rejection: { readonly code: ErrorCode | null; readonly reason: string } | null;
  readonly cancelledBy: CancellationType | null;
  /** Quantity the cancellation did not account for (fills we have not seen); 0 when all is explained. */
  readonly unexplained: bigint;
}

export function newOrder(
  o: Pick<OrderRecord, 'clientOrderId' | 'pairId' | 'side' | 'quantity' | 'price'>,
): OrderRecord {
  return {
    ...o,
    status: 'intended',
    orderId: null,
    filled: 0n,
    fillIds: [],
    txHash: null,
    cancelTxHash: null,
    rejection: null,
    cancelledBy: null,
    unexplained: 0n,
  };
}

export type TransitionResult =
  { readonly ok: true; readonly order: OrderRecord } | { readonly ok: false; readonly reason: string };

export function remainingOf(order: OrderRecord): bigint {
  return order.quantity - order.filled;
}

type Handler<E extends OrderEventType> = (
  order: OrderRecord,
  event: Extract<OrderEvent, { type: E }>,
) => TransitionResult;
type Row = { readonly [E in OrderEventType]?: Handler<E> };

const ok = (order: OrderRecord): TransitionResult => ({ ok: true, order });
const refuse = (reason: string): TransitionResult => ({ ok: false, reason });

const sent: Handler<'SubmissionSent'> = (o, e) => ok({ ...o, status: 'submitting', txHash: e.txHash });
const refused: Handler<'Refused'> = (o, e) =>
  ok({ ...o, status: 'rejected', rejection: { code: e.code, reason: e.reason } });
const unknown: Handler<'OutcomeUnknown'> = (o) => ok({ ...o, status: 'unknown' });
const accepted: Handler<'Accepted'> = (o, e) => ok({ ...o, status: 'received', orderId: e.orderId });
const failed: Handler<'SubmissionFailed'> = (o, e) =>
  ok({ ...o, status: 'rejected', rejection: { code: e.code, reason: e.reason } });

const filled: Handler<'Filled'> = (o, e) => {
  if (e.quantity <= 0n) return refuse(`fill ${e.fillId} has quantity ${e.quantity}`);
  if (o.fillIds.includes(e.fillId)) return refuse(`duplicate fill ${e.fillId}`);
  if (e.quantity > remainingOf(o))
    return refuse(`fill ${e.fillId} of ${e.quantity} exceeds the remaining ${remainingOf(o)}`);
  if (o.status === 'received' && e.role !== 'taker') return refuse('a fill at placement is a taker fill');
  const total = o.filled + e.quantity;
  const status: OrderStatus =
    total === o.quantity ? 'filled' : o.status === 'cancelRequested' ? 'cancelRequested' : 'partiallyFilled';
  return ok({ ...o, status, filled: total, fillIds: [...o.fillIds, e.fillId] });
};

const rested: Handler<'Rested'> = (o, e) => {
  if (e.quantity !== remainingOf(o))
    return refuse(`resting quantity ${e.quantity} is not the remaining ${remainingOf(o)}`);
  return ok({ ...o, status: o.filled === 0n ? 'resting' : 'partiallyFilled' });
};

const remainderRejected: Handler<'RemainderRejected'> = (o, e) => {
  if (e.quantity !== remainingOf(o))
    return refuse(`rejected quantity ${e.quantity} is not the remaining ${remainingOf(o)}`);
  return ok({ ...o, status: 'rejected', rejection: { code: null, reason: `rejection reason ${e.reason}` } });
};

const cancelSent: Handler<'CancelSent'> = (o, e) => ok({ ...o, status: 'cancelRequested', cancelTxHash: e.txHash });
const cancelFailed: Handler<'CancelFailed'> = (o) =>
  ok({ ...o, status: o.filled === 0n ? 'resting' : 'partiallyFilled', cancelTxHash: null });
const notOnBook: Handler<'NotOnBook'> = (o) => ok({ ...o, status: 'cancelRequested', cancelTxHash: null });

const cancelled: Handler<'Cancelled'> = (o, e) => {
  if (e.quantity > remainingOf(o))
    return refuse(`cancelled quantity ${e.quantity} exceeds the remaining ${remainingOf(o)}`);
  return ok({ ...o, status: 'cancelled', cancelledBy: e.by, unexplained: remainingOf(o) - e.quantity });
};

/** The whole table: a (status, event) pair that is not listed is impossible. */
export const TRANSITIONS: Readonly<Record<OrderStatus, Row>> = {
  intended: { SubmissionSent: sent, Refused: refused },
  submitting: { OutcomeUnknown: unknown, Accepted: accepted, SubmissionFailed: failed, Refused: refused },
  unknown: { Accepted: accepted, SubmissionFailed: failed },
  received: { Rested: rested, Filled: filled, RemainderRejected: remainderRejected },
  resting: { Filled: filled, CancelSent: cancelSent, Cancelled: cancelled, NotOnBook: notOnBook },
  partiallyFilled: {
    Rested: rested,
    Filled: filled,
    RemainderRejected: remainderRejected,
    CancelSent: cancelSent,
    Cancelled: cancelled,
    NotOnBook: notOnBook,
  },
  cancelRequested: { Filled: filled, Cancelled: cancelled, CancelFailed: cancelFailed, NotOnBook: notOnBook },
  filled: {},
  cancelled: {},
  rejected: {},
};

/** Applies one event, or refuses it with the reason; the order is never half-changed. */
export function applyOrderEvent(order: OrderRecord, event: OrderEvent): TransitionResult {
  const handler = TRANSITIONS[order.status][event.type] as
    ((o: OrderRecord, e: OrderEvent) => TransitionResult) | undefined;
  if (handler === undefined) return refuse(`${event.type} is impossible in status ${order.status}`);
  return handler(order, event);
}
