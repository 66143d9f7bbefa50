import { describe, expect, it } from 'vitest';
import { classify } from './classify.ts';
import type { Incident, IncidentFacts } from './model.ts';

const T = 1_000_000;

function incident(over: Partial<Incident> & { facts?: IncidentFacts }): Incident {
  return {
    chain: 'evm',
    stage: 'inclusion',
    call: 'cancel',
    pairId: 'p',
    code: 'E_VENUE_ORDER_NOT_FOUND',
    name: 'OrderBook_OrderNotFound',
    txHash: '0xabc',
    orderId: '7',
    atMs: T,
    height: 11,
    facts: {},
    ...over,
  };
}

const closed = (facts: IncidentFacts, height: number | null = null) =>
  classify(incident({ call: 'place', code: 'E_VENUE_MARKET_CLOSED', stage: 'simulation', height, facts }));
const filledAt = (height: number, nextPublishedMs: number | null) => ({
  height,
  how: 'filled' as const,
  nextPublishedMs,
});

describe('classify: a cancel that found no order', () => {
  it('is a venue race when it met the fill in the same block', () => {
    expect(classify(incident({ height: 11, facts: { removal: filledAt(11, T + 2_000) } }))).toEqual({
      class: 'venue race',
      rule: "cancel met the order's removal (filled) in the same block or ledger",
    });
  });

  it('is a venue race when the fill was in the newest block as the cancel left', () => {
    expect(classify(incident({ height: 12, facts: { removal: filledAt(11, T + 1) } })).class).toBe('venue race');
    // A refusal at simulation has no block of its own: only the time it left decides.
    expect(
      classify(incident({ stage: 'simulation', height: null, facts: { removal: filledAt(11, T + 1) } })).class,
    ).toBe('venue race');
    expect(
      classify(incident({ stage: 'simulation', height: null, facts: { removal: filledAt(11, null) } })).class,
    ).toBe('venue race');
  });

  it('is self-caused when a newer block than the fill was already published', () => {
    expect(classify(incident({ height: 13, facts: { removal: filledAt(11, T - 1) } }))).toEqual({
      class: 'self-caused',
      rule: 'cancel of an order filled before the newest block or ledger: our view was stale',
    });
    expect(classify(incident({ height: 13, facts: { removal: filledAt(11, T) } })).class).toBe('self-caused');
  });

  it('is self-caused when the bot had already recorded the order as gone, even in the same block', () => {
    expect(
      classify(incident({ height: 11, facts: { removal: filledAt(11, T + 2_000), botKnewGoneMs: T - 5 } })),
    ).toEqual({
      class: 'self-caused',
      rule: 'cancel of an order we already knew was gone',
    });
    // Learning it after the cancel left does not make it known before.
    expect(
      classify(incident({ height: 11, facts: { removal: filledAt(11, T + 2_000), botKnewGoneMs: T + 5 } })).class,
    ).toBe('venue race');
  });

  it('is self-caused as a second cancel, whatever else happened', () => {
    expect(
      classify(incident({ facts: { removal: filledAt(11, T + 2_000), earlierCancel: { txHash: '0x1', height: 10 } } }))
        .rule,
    ).toBe('second cancel: an earlier cancel of ours had already reached the chain');
    expect(
      classify(incident({ facts: { removal: { height: 10, how: 'cancelled by us', nextPublishedMs: T + 5 } } })).rule,
    ).toBe('second cancel: the order was already cancelled by us');
  });

  it('is self-caused when the order never rested', () => {
    expect(classify(incident({ facts: { removal: null } }))).toEqual({
      class: 'self-caused',
      rule: 'cancel of an order that never rested on the book',
    });
  });

  it('treats a removal by the contract or the venue like a fill: the chain decided', () => {
    expect(
      classify(
        incident({
          height: 11,
          facts: { removal: { height: 11, how: 'cancelled by the contract', nextPublishedMs: null } },
        }),
      ).class,
    ).toBe('venue race');
  });
});

describe('classify: everything else', () => {
  it('names the self-caused reasons of our own state or decisions', () => {
    expect(
      classify(incident({ call: 'place', code: 'E_VENUE_INSUFFICIENT_ALLOWANCE', name: '#9 AllowanceError' })),
    ).toEqual({
      class: 'self-caused',
      rule: 'allowance short: our allowance view was wrong',
    });
    expect(classify(incident({ call: 'place', code: 'E_VENUE_OFF_TICK' })).rule).toBe('off-tick price');
    expect(classify(incident({ call: 'place', code: 'E_VENUE_VALUE_BELOW_MIN_RANGE' })).rule).toBe(
      'a pre-trade control (order value)',
    );
    expect(classify(incident({ call: 'place', stage: 'matching', code: 'CANCELLED_BY_CONTRACT' })).rule).toBe(
      'resting order cancelled by the contract at matching: balance or allowance short',
    );
    expect(classify(incident({ call: 'place', stage: 'expiry', code: 'DROPPED' })).class).toBe('self-caused');
  });

  it('fails closed: a reason no rule names is ours', () => {
    expect(classify(incident({ call: 'approve', code: 'E_SOMETHING_NEW', stage: 'submission' }))).toEqual({
      class: 'self-caused',
      rule: 'no rule explains E_SOMETHING_NEW at submission: counted as ours',
    });
    // A not-found answer to a placement is no cancel race.
    expect(
      classify(incident({ call: 'place', code: 'E_VENUE_ORDER_NOT_FOUND', facts: { removal: filledAt(11, T + 1) } }))
        .class,
    ).toBe('self-caused');
  });

  it('a closed market is a race only against a halt in the newest block or ledger', () => {
    expect(closed({ halt: { height: 11, nextPublishedMs: T + 1 } }).class).toBe('venue race');
    expect(closed({ halt: { height: 11, nextPublishedMs: T - 1 } }, 11).class).toBe('venue race');
    expect(closed({ halt: { height: 11, nextPublishedMs: T - 1 } }).rule).toBe(
      'order sent into a halt older than the newest block or ledger: our status view was stale',
    );
    expect(closed({ halt: null }).rule).toBe('market closed with no halt on the chain: our status view was wrong');
  });

  it('TRY_AGAIN_LATER is ours: the source account was busy', () => {
    expect(
      classify(
        incident({
          chain: 'wasm',
          stage: 'submission',
          call: 'place',
          code: 'TRY_AGAIN_LATER',
          facts: { sourceBusy: true },
        }),
      ).rule,
    ).toBe('source account already had a pending transaction');
    expect(
      classify(
        incident({
          chain: 'wasm',
          stage: 'submission',
          call: 'place',
          code: 'TRY_AGAIN_LATER',
          facts: { sourceBusy: false },
        }),
      ).class,
    ).toBe('self-caused');
  });
});
