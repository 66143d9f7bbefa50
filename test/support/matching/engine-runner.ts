/** Runs a scenario fixture against the reference engine with an in-memory ledger and returns what each step did. */
import { DltError } from '../../../src/core/errors.ts';
import {
  cancelOrder,
  clearOrders,
  cloneBook,
  createBook,
  setPhase,
  submitOrder,
} from '../../../src/sandbox/matching/engine.ts';
import type { Book, BookContext, BookEvent, Token } from '../../../src/sandbox/matching/types.ts';
import type { Expectation, Fixture, FixtureEvent, Step } from './fixtures.ts';
import { normaliseEvent } from './fixtures.ts';
import { MemoryLedger } from './memory-ledger.ts';

export interface StepOutcome {
  readonly step: Step;
  readonly error: string | null;
  readonly orderId: bigint | null;
  readonly events: FixtureEvent[];
  readonly balanceDeltas: Record<string, Partial<Record<Token, bigint>>>;
  readonly book: Book;
}

/** The expected view of a step: only what the fixture states (a step without expectations must succeed). */
export function expectedView(e: Expectation | undefined, where: string): Record<string, unknown> {
  return {
    where,
    error: e?.error ?? null,
    ...Object.fromEntries(Object.entries(e ?? {}).filter(([k]) => k !== 'error')),
  };
}

/** What a matching implementation did in a step, reduced to the keys the fixture states. */
export function observedView(o: StepOutcome, where: string): Record<string, unknown> {
  const view = (list: typeof o.book.buys) =>
    list.map((r) => ({ orderId: r.id, wallet: r.wallet, quantity: r.remaining, price: r.price }));
  return statedView(o.step, o.error, where, {
    orderId: o.orderId,
    events: o.events,
    balanceDeltas: o.balanceDeltas,
    book: { buy: view(o.book.buys), sell: view(o.book.sells) },
    lastPrice: o.book.lastPrice,
    phase: o.book.phase,
  });
}

/** A step's error and, of everything it did (`all`), the keys its fixture states. */
export function statedView(
  step: Step,
  error: string | null,
  where: string,
  all: Record<string, unknown>,
): Record<string, unknown> {
  return {
    where,
    error,
    ...Object.fromEntries(
      Object.keys(step.expect ?? {})
        .filter((k) => k !== 'error')
        .map((k) => [k, all[k]]),
    ),
  };
}

export function accountsOf(fixture: Fixture): string[] {
  return [...Object.keys(fixture.wallets), 'orderBook', 'commission'];
}

export function diffBalances(
  before: Map<string, bigint>,
  after: Map<string, bigint>,
  accounts: string[],
): Record<string, Partial<Record<Token, bigint>>> {
  const out: Record<string, Partial<Record<Token, bigint>>> = {};
  for (const account of accounts) {
    for (const token of ['base', 'quote'] as const) {
      const key = `${token}:${account}`;
      const delta = (after.get(key) ?? 0n) - (before.get(key) ?? 0n);
      if (delta !== 0n) (out[account] ??= {})[token] = delta;
    }
  }
  return out;
}

export function runFixtureOnEngine(fixture: Fixture): StepOutcome[] {
  const ledger = new MemoryLedger();
  for (const [name, w] of Object.entries(fixture.wallets)) {
    ledger.mint('base', name, w.base);
    ledger.mint('quote', name, w.quote);
    ledger.approve('base', name, 'orderBook', w.baseAllowance);
    ledger.approve('quote', name, 'orderBook', w.quoteAllowance);
  }
  let now = 1_800_000_000n;
  let book = createBook(fixture.pair);
  const ctx = (): BookContext => ({
    ledger,
    nowSeconds: now,
    client: (account) => {
      const w = fixture.wallets[account];
      return w?.registered
        ? { canBuy: w.canBuy, canSell: w.canSell, canCancel: w.canCancel, isMarketMaker: w.marketMaker }
        : undefined;
    },
  });
  const accounts = accountsOf(fixture);
  const outcomes: StepOutcome[] = [];
  for (const step of fixture.steps) {
    const before = new Map(ledger.balances);
    const saved = { book: cloneBook(book), ledger: ledger.snapshot() };
    let events: BookEvent[] = [];
    let orderId: bigint | null = null;
    let error: string | null = null;
    try {
      switch (step.kind) {
        case 'place': {
          const { wallet, side, ...order } = step.place;
          const r = submitOrder(book, ctx(), wallet, side, () => ({ ...order, reportingData: new Uint8Array([0]) }));
          orderId = r.orderId;
          events = r.events;
          break;
        }
        case 'cancel':
          events = cancelOrder(book, ctx(), step.cancel.wallet, step.cancel.side, step.cancel.orderId, 'ByParticipant');
          break;
        case 'adminCancel':
          events = cancelOrder(book, ctx(), 'operator', step.adminCancel.side, step.adminCancel.orderId, 'ByAdmin');
          break;
        case 'clear':
          events = clearOrders(book, ctx());
          break;
        case 'setPhase':
          setPhase(book, step.phase);
          break;
        case 'advance':
          now += BigInt(step.seconds);
          break;
        case 'setStaticReferencePrice':
          book.staticReferencePrice = step.price;
          break;
      }
    } catch (e) {
      if (!(e instanceof DltError)) throw e;
      error = e.code;
      book = saved.book;
      ledger.restore(saved.ledger);
      events = [];
    }
    outcomes.push({
      step,
      error,
      orderId,
      events: events.map((e) => normaliseEvent(e, (a) => a)),
      balanceDeltas: diffBalances(before, ledger.balances, accounts),
      book: cloneBook(book),
    });
  }
  return outcomes;
}
