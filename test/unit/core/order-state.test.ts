import { describe, expect, it } from 'vitest';
import {
  applyOrderEvent,
  isAwaitingPlacement,
  isCancellable,
  isLive,
  isOnBook,
  isQuoting,
  isTerminal,
  isUnsettled,
  newOrder,
  ORDER_STATUSES,
  type OrderEvent,
  type OrderEventType,
  type OrderRecord,
  type OrderStatus,
} from '../../../src/core/order-state.ts';

const base = newOrder({ clientOrderId: 7n, pairId: 'p', side: 'buy', quantity: 100n, price: 5000n });
const at = (status: OrderStatus, over: Partial<OrderRecord> = {}): OrderRecord => ({ ...base, status, ...over });

/** One valid-looking event of each type, for an order with quantity 100 and 40 filled where it matters. */
const sample: Record<OrderEventType, OrderEvent> = {
  SubmissionSent: { type: 'SubmissionSent', txHash: '0xaa' },
  Refused: { type: 'Refused', code: 'E_RULE_TICK', reason: 'off tick' },
  OutcomeUnknown: { type: 'OutcomeUnknown', reason: 'timeout' },
  Accepted: { type: 'Accepted', orderId: 11n },
  SubmissionFailed: { type: 'SubmissionFailed', code: 'E_VENUE_INSUFFICIENT_ALLOWANCE', reason: 'reverted' },
  Rested: { type: 'Rested', quantity: 60n },
  Filled: { type: 'Filled', fillId: 'f1', quantity: 10n, price: 5000n, role: 'taker' },
  RemainderRejected: { type: 'RemainderRejected', reason: 7, quantity: 60n },
  CancelSent: { type: 'CancelSent', txHash: '0xbb' },
  CancelFailed: { type: 'CancelFailed', code: 'E_CHAIN_TX_EXPIRED', reason: 'never mined' },
  NotOnBook: { type: 'NotOnBook', code: 'E_VENUE_ORDER_NOT_FOUND', reason: 'gone' },
  Cancelled: { type: 'Cancelled', by: 'ByParticipant', quantity: 60n },
};

/** The allowed transitions, written out independently of the implementation's table. */
const ALLOWED: ReadonlyArray<[OrderStatus, OrderEventType, OrderStatus]> = [
  ['intended', 'SubmissionSent', 'submitting'],
  ['intended', 'Refused', 'rejected'],
  ['submitting', 'OutcomeUnknown', 'unknown'],
  ['submitting', 'Accepted', 'received'],
  ['submitting', 'SubmissionFailed', 'rejected'],
  ['submitting', 'Refused', 'rejected'],
  ['unknown', 'Accepted', 'received'],
  ['unknown', 'SubmissionFailed', 'rejected'],
  ['received', 'Rested', 'partiallyFilled'],
  ['received', 'Filled', 'partiallyFilled'],
  ['received', 'RemainderRejected', 'rejected'],
  ['resting', 'Filled', 'partiallyFilled'],
  ['resting', 'CancelSent', 'cancelRequested'],
  ['resting', 'Cancelled', 'cancelled'],
  ['partiallyFilled', 'Rested', 'partiallyFilled'],
  ['partiallyFilled', 'Filled', 'partiallyFilled'],
  ['partiallyFilled', 'RemainderRejected', 'rejected'],
  ['partiallyFilled', 'CancelSent', 'cancelRequested'],
  ['partiallyFilled', 'Cancelled', 'cancelled'],
  ['cancelRequested', 'Filled', 'cancelRequested'],
  ['cancelRequested', 'Cancelled', 'cancelled'],
  ['cancelRequested', 'CancelFailed', 'partiallyFilled'],
  ['resting', 'NotOnBook', 'cancelRequested'],
  ['partiallyFilled', 'NotOnBook', 'cancelRequested'],
  ['cancelRequested', 'NotOnBook', 'cancelRequested'],
];

// Orders with 40 of 100 filled, so that the sample quantities (remaining 60) are consistent everywhere.
const withFills = (s: OrderStatus) => at(s, { filled: 40n, fillIds: ['f0'] });

describe('order transition table', () => {
  it('allows exactly the listed transitions, each to the listed status', () => {
    const results = ORDER_STATUSES.flatMap((s) =>
      (Object.keys(sample) as OrderEventType[]).map((t) => {
        const r = applyOrderEvent(withFills(s), sample[t]);
        return [s, t, r.ok ? r.order.status : 'refused'] as const;
      }),
    );
    const allowed = results.filter(([, , to]) => to !== 'refused');
    expect(allowed.toSorted()).toEqual([...ALLOWED].toSorted());
  });

  it('refuses every event in a terminal status without changing the order', () => {
    for (const s of ['filled', 'cancelled', 'rejected'] as const) {
      const order = withFills(s);
      for (const e of Object.values(sample)) expect(applyOrderEvent(order, e)).toMatchObject({ ok: false });
      expect(order.status).toBe(s);
    }
  });
});

describe('fills', () => {
  it('refuses a duplicate fill and a fill larger than what remains', () => {
    const once = applyOrderEvent(at('resting'), {
      type: 'Filled',
      fillId: 'tx1:3',
      quantity: 30n,
      price: 5000n,
      role: 'maker',
    });
    expect(once).toMatchObject({ ok: true, order: { filled: 30n, status: 'partiallyFilled' } });
    const order = (once as { order: OrderRecord }).order;
    expect(
      applyOrderEvent(order, { type: 'Filled', fillId: 'tx1:3', quantity: 30n, price: 5000n, role: 'maker' }),
    ).toEqual({
      ok: false,
      reason: 'duplicate fill tx1:3',
    });
    expect(
      applyOrderEvent(order, { type: 'Filled', fillId: 'tx2:1', quantity: 71n, price: 5000n, role: 'maker' }),
    ).toMatchObject({ ok: false });
    expect(
      applyOrderEvent(order, { type: 'Filled', fillId: 'tx2:1', quantity: 70n, price: 5000n, role: 'maker' }),
    ).toMatchObject({
      ok: true,
      order: { status: 'filled', filled: 100n },
    });
  });

  it('a placement that matches in part then rests goes received -> partiallyFilled and stays there', () => {
    let o: OrderRecord = at('received', { orderId: 3n });
    for (const e of [
      { type: 'Filled', fillId: 't', quantity: 25n, price: 4900n, role: 'taker' },
      { type: 'Rested', quantity: 75n },
    ] as OrderEvent[]) {
      const r = applyOrderEvent(o, e);
      expect(r.ok).toBe(true);
      o = (r as { order: OrderRecord }).order;
    }
    expect(o).toMatchObject({ status: 'partiallyFilled', filled: 25n });
  });

  it('a maker fill is not possible at placement, and a rest must be the whole remainder', () => {
    expect(
      applyOrderEvent(at('received'), { type: 'Filled', fillId: 'm', quantity: 1n, price: 1n, role: 'maker' }),
    ).toMatchObject({ ok: false });
    expect(applyOrderEvent(at('received'), { type: 'Rested', quantity: 99n })).toMatchObject({ ok: false });
    expect(applyOrderEvent(at('received'), { type: 'Rested', quantity: 100n })).toMatchObject({
      ok: true,
      order: { status: 'resting' },
    });
  });

  it('a fill racing a cancellation keeps the cancel pending, or completes the order', () => {
    const pending = at('cancelRequested', { cancelTxHash: '0xc' });
    expect(
      applyOrderEvent(pending, { type: 'Filled', fillId: 'x', quantity: 40n, price: 1n, role: 'maker' }),
    ).toMatchObject({
      ok: true,
      order: { status: 'cancelRequested', filled: 40n },
    });
    expect(
      applyOrderEvent(pending, { type: 'Filled', fillId: 'x', quantity: 100n, price: 1n, role: 'maker' }),
    ).toMatchObject({
      ok: true,
      order: { status: 'filled' },
    });
  });
});

describe('cancellation', () => {
  it('records who cancelled and any quantity the cancellation did not explain', () => {
    expect(applyOrderEvent(at('resting'), { type: 'Cancelled', by: 'ByContract', quantity: 100n })).toMatchObject({
      ok: true,
      order: { status: 'cancelled', cancelledBy: 'ByContract', unexplained: 0n },
    });
    expect(applyOrderEvent(at('resting'), { type: 'Cancelled', by: 'ByAdmin', quantity: 70n })).toMatchObject({
      ok: true,
      order: { unexplained: 30n },
    });
    expect(applyOrderEvent(at('resting'), { type: 'Cancelled', by: 'ByAdmin', quantity: 101n })).toMatchObject({
      ok: false,
    });
  });

  it('a failed cancellation puts the order back to what it was', () => {
    expect(applyOrderEvent(at('cancelRequested'), sample.CancelFailed)).toMatchObject({
      ok: true,
      order: { status: 'resting', cancelTxHash: null },
    });
  });

  it('an order a cancellation found gone leaves for good: no cancel pending, and its fill or cancellation still settles it', () => {
    const gone = applyOrderEvent(at('cancelRequested', { cancelTxHash: '0xbb' }), sample.NotOnBook);
    expect(gone).toMatchObject({ ok: true, order: { status: 'cancelRequested', cancelTxHash: null } });
    if (!gone.ok) return;
    // Not cancellable again: CancelSent is impossible in its status.
    expect(applyOrderEvent(gone.order, sample.CancelSent)).toMatchObject({ ok: false });
    expect(
      applyOrderEvent(gone.order, { type: 'Filled', fillId: 'f9', quantity: 100n, price: 5000n, role: 'maker' }),
    ).toMatchObject({ ok: true, order: { status: 'filled' } });
    expect(applyOrderEvent(gone.order, { type: 'Cancelled', by: 'ByContract', quantity: 100n })).toMatchObject({
      ok: true,
      order: { status: 'cancelled' },
    });
  });
});

const where = (p: (s: OrderStatus) => boolean) => ORDER_STATUSES.filter(p);
const allows = (s: OrderStatus, t: OrderEventType) => applyOrderEvent(withFills(s), sample[t]).ok;

describe('status groups', () => {
  it('follow the transition table', () => {
    // Terminal: no event moves it. Cancellable: a cancel may be sent. Awaiting placement: the chain may still accept it.
    expect(where(isTerminal)).toEqual(
      ORDER_STATUSES.filter((s) => (Object.keys(sample) as OrderEventType[]).every((t) => !allows(s, t))),
    );
    expect(where(isCancellable)).toEqual(ORDER_STATUSES.filter((s) => allows(s, 'CancelSent')));
    expect(where(isAwaitingPlacement)).toEqual(ORDER_STATUSES.filter((s) => allows(s, 'Accepted')));
    // On the book: a cancellation can find it there or gone.
    expect(where(isOnBook)).toEqual(ORDER_STATUSES.filter((s) => allows(s, 'NotOnBook')));
  });

  it('split the statuses as the engine reads them', () => {
    expect(where(isLive)).toEqual(ORDER_STATUSES.filter((s) => s !== 'intended' && !isTerminal(s)));
    expect(where(isUnsettled)).toEqual(['intended', 'submitting', 'unknown', 'received']);
    expect(where(isQuoting)).toEqual(where(isLive).filter((s) => s !== 'cancelRequested'));
    for (const s of ORDER_STATUSES)
      expect([isTerminal(s), isUnsettled(s), isOnBook(s)].filter(Boolean)).toHaveLength(1);
  });
});
