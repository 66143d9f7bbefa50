/**
 * The soak's classification of a rejection, revert or refused transaction: *venue race* when the chain decided
 * something the bot could not have known when its transaction left, *self-caused* otherwise. Only two rules
 * make a venue race; everything else, including any reason no rule names, is self-caused (the classification
 * fails closed: an unexplained refusal is ours until a rule explains it). test/soak/README.md, "Classification".
 */
import type { Classification, Incident } from './model.ts';

/** Self-caused rules by reason: what was wrong in our state or decision. */
const SELF_CAUSED: Readonly<Record<string, string>> = {
  E_VENUE_INSUFFICIENT_ALLOWANCE: 'allowance short: our allowance view was wrong',
  E_VENUE_INSUFFICIENT_BALANCE: 'balance short: our funds view was wrong',
  E_VENUE_OFF_TICK: 'off-tick price',
  E_VENUE_PRICE_ABOVE_MAX_RANGE: 'a pre-trade control (price collar)',
  E_VENUE_PRICE_BELOW_MIN_RANGE: 'a pre-trade control (price collar)',
  E_VENUE_VALUE_ABOVE_MAX_RANGE: 'a pre-trade control (order value)',
  E_VENUE_VALUE_BELOW_MIN_RANGE: 'a pre-trade control (order value)',
  E_VENUE_VOLUME_ABOVE_MAX_RANGE: 'a pre-trade control (order size)',
  E_VENUE_VOLUME_BELOW_MIN_RANGE: 'a pre-trade control (order size)',
  E_VENUE_VOLATILITY_MAX_STATIC: 'a volatility control: our order would have traded outside the band',
  E_VENUE_VOLATILITY_MIN_STATIC: 'a volatility control: our order would have traded outside the band',
  E_VENUE_VOLATILITY_MAX_DYNAMIC: 'a volatility control: our order would have traded outside the band',
  E_VENUE_VOLATILITY_MIN_DYNAMIC: 'a volatility control: our order would have traded outside the band',
  E_VENUE_INVALID_ORDER_DATA: 'order encoding refused',
  E_VENUE_NOT_ALLOWED_TO_BUY: 'wallet permissions',
  E_VENUE_NOT_ALLOWED_TO_SELL: 'wallet permissions',
  E_VENUE_NOT_ALLOWED_TO_CANCEL: 'wallet permissions',
  E_REJECTED_SELF_TRADE: 'rejected at matching: our order met our own',
  E_REJECTED_MAX_MATCHES: 'rejected at matching: our order crossed the book (quotes rest passively)',
  E_REJECTED_CIRCUIT_BREAKER: 'rejected at matching: our order crossed the book (quotes rest passively)',
  E_REJECTED_PARTIAL: 'rejected at matching: our order crossed the book (quotes rest passively)',
  E_REJECTED_FULL: 'rejected at matching: our order crossed the book (quotes rest passively)',
  CANCELLED_BY_CONTRACT: 'resting order cancelled by the contract at matching: balance or allowance short',
  E_CHAIN_TX_EXPIRED: 'exhausted retry: the transaction expired or its nonce was cancelled',
  DROPPED: 'exhausted retry: sent and dropped by the node (expired or bad sequence)',
  E_CHAIN_TX_REFUSED: 'refused by the node (nonce, fee or sequence)',
};

const self = (rule: string): Classification => ({ class: 'self-caused', rule });
const race = (rule: string): Classification => ({ class: 'venue race', rule });

export function classify(i: Incident): Classification {
  if (i.call === 'cancel' && i.code === 'E_VENUE_ORDER_NOT_FOUND') return goneCancel(i);
  if (i.code === 'E_VENUE_MARKET_CLOSED') return closedMarket(i);
  if (i.code === 'TRY_AGAIN_LATER') {
    return self(
      i.facts.sourceBusy === true
        ? 'source account already had a pending transaction'
        : 'TRY_AGAIN_LATER with no pending transaction of the source seen',
    );
  }
  const rule = SELF_CAUSED[i.code];
  return self(rule ?? `no rule explains ${i.code} at ${i.stage}: counted as ours`);
}

/** A cancel that found no order: a race only when the order left the book in the newest block or ledger. */
function goneCancel(i: Incident): Classification {
  const f = i.facts;
  if (f.earlierCancel != null) return self('second cancel: an earlier cancel of ours had already reached the chain');
  const removal = f.removal;
  if (removal == null) return self('cancel of an order that never rested on the book');
  if (removal.how === 'cancelled by us') return self('second cancel: the order was already cancelled by us');
  if (f.botKnewGoneMs != null && f.botKnewGoneMs <= i.atMs) return self('cancel of an order we already knew was gone');
  if (i.height !== null && i.height === removal.height)
    return race(`cancel met the order's removal (${removal.how}) in the same block or ledger`);
  if (removal.nextPublishedMs === null || i.atMs < removal.nextPublishedMs) {
    return race(`order ${removal.how} in the newest block or ledger when the cancel left: not yet seeable`);
  }
  return self(`cancel of an order ${removal.how} before the newest block or ledger: our view was stale`);
}

/** A placement refused because the book was not open: a race only when the halt is in the newest block or ledger. */
function closedMarket(i: Incident): Classification {
  const halt = i.facts.halt;
  if (halt == null) return self('market closed with no halt on the chain: our status view was wrong');
  if (i.height !== null && i.height === halt.height) return race('order met the halt in the same block or ledger');
  if (halt.nextPublishedMs === null || i.atMs < halt.nextPublishedMs)
    return race('halted in the newest block or ledger when the order left: not yet seeable');
  return self('order sent into a halt older than the newest block or ledger: our status view was stale');
}
