/**
 * The replay rule for others' recorded transactions. An order of another client is sent again with its full
 * terms and matched against the replayed book as it stands, ours included, by price and time; it may
 * therefore trade with our order where live it traded with another. An order that did not rest live (it
 * traded in full, or the rest was cancelled at once) is immediate-or-cancel here: the taker acted on the book
 * it saw, and does not leave a standing order it never had. A recorded cancellation of an order that has
 * already traded away in the replay changes nothing. The recorded transactions of the wallets under test (the
 * live bot's own orders) are left out: the bot under test sends its own. The book at the start is the first
 * book message recorded (`seed`): each price level one resting order of a client the recording does not
 * know; a recorded cancellation of an order that rested before the recording began takes its quantity off
 * that level.
 */
import { EXECUTION_CONDITION_BY_CODE, ORDER_TYPE_BY_CODE, type Side } from '../core/order-terms.ts';
import { insertResting, removeResting } from '../sandbox/matching/book.ts';
import { cancelOrder, submitOrder } from '../sandbox/matching/engine.ts';
import type { Book, BookEvent } from '../sandbox/matching/types.ts';
import type { SimAction } from './sim-chain.ts';

/** The client of the orders resting before the recording began. */
export const EARLIER = 'recorded-book';

/** What happened to the recorded transactions of others. */
export interface ReplayCounts {
  /** Orders of others applied again. */
  orders: number;
  /** Of these, refused by the replayed book (a collar or a halt the live book did not have). */
  refused: number;
  /** Cancellations of others applied. */
  cancels: number;
  /** Cancellations of others' orders that had already traded away in the replay. */
  moot: number;
}

export class OthersReplay {
  readonly counts: ReplayCounts = { orders: 0, refused: 0, cancels: 0, moot: 0 };
  readonly #tested: ReadonlySet<string>;
  /** Recorded order id of another client -> its id in the replayed book, per pair. */
  readonly #ids = new Map<string, bigint>();

  constructor(tested: ReadonlySet<string>) {
    this.#tested = tested;
  }

  /** The book as the first recorded book message showed it: one resting order per level (raw units). */
  seed(book: Book, side: Side, levels: ReadonlyArray<{ readonly price: bigint; readonly quantity: bigint }>): void {
    for (const l of levels)
      insertResting(book, {
        id: book.nextOrderId++,
        wallet: EARLIER,
        side,
        remaining: l.quantity,
        price: l.price,
        crossId: 0n,
        lockRateBps: 0,
        validity: 'gtd',
        expiresAt: null,
      });
  }

  /** A recorded cancellation of an order from before the recording: its quantity off the seeded level. */
  #cancelEarlier(book: Book, e: RecordedEvent, baseToken: string): boolean {
    const side: Side = e.token?.toLowerCase() === baseToken.toLowerCase() ? 'sell' : 'buy';
    const level = (side === 'buy' ? book.buys : book.sells).find((o) => o.wallet === EARLIER && o.price === e.price);
    if (level === undefined) return false;
    level.remaining -= e.quantity < level.remaining ? e.quantity : level.remaining;
    if (level.remaining === 0n) removeResting(book, side, level.id);
    return true;
  }

  /** The action of a recorded transaction of others; null when there is nothing of others to apply. */
  replayOf(pairId: string, baseToken: string, events: readonly RecordedEvent[]): SimAction | null {
    const theirs = events.filter(
      (e) =>
        !this.#tested.has(e.client) &&
        (e.type === 'OrderReceived' || (e.type === 'OrderCancelled' && e.cancellationType !== 'ByContract')),
    );
    if (theirs.length === 0) return null;
    return (book, ctx) => {
      const out: BookEvent[] = [];
      for (const e of theirs) {
        const key = `${pairId}:${e.orderId}`;
        if (e.type === 'OrderReceived') {
          this.counts.orders++;
          // An order that did not rest live (it traded in full, or its remainder was cancelled) does not rest here.
          const rested = events.some((x) => x.type === 'OrderResting' && x.orderId === e.orderId);
          const condition = EXECUTION_CONDITION_BY_CODE.get(e.executionCondition as 0 | 1 | 2 | 3) ?? 'standard';
          try {
            const r = submitOrder(book, ctx, e.client, e.side as Side, () => ({
              quantity: e.quantity,
              price: e.price,
              crossId: e.crossIdentifier,
              type: ORDER_TYPE_BY_CODE.get(e.orderType as 0 | 1) ?? 'limit',
              condition: condition === 'standard' && !rested ? 'ioc' : condition,
              validity: 'gtd',
              lifetimeDays: 0,
              reportingData: new Uint8Array([0]),
            }));
            this.#ids.set(key, r.orderId);
            out.push(...r.events);
          } catch {
            this.counts.refused++;
          }
          continue;
        }
        const id = this.#ids.get(key);
        if (id === undefined && this.#cancelEarlier(book, e, baseToken)) {
          this.counts.cancels++;
          continue;
        }
        const resting = id === undefined ? undefined : [...book.buys, ...book.sells].find((o) => o.id === id);
        if (resting === undefined) {
          this.counts.moot++;
          continue;
        }
        this.counts.cancels++;
        const by = e.cancellationType === 'ByAdmin' ? 'ByAdmin' : 'ByParticipant';
        out.push(...cancelOrder(book, ctx, resting.wallet, resting.side, resting.id, by));
      }
      return { events: out, orderId: null };
    };
  }
}

/** A recorded order book event, as the replay reads it back. */
export interface RecordedEvent {
  readonly type: string;
  readonly client: string;
  readonly orderId: bigint;
  readonly side: string | null;
  readonly quantity: bigint;
  readonly price: bigint;
  readonly crossIdentifier: bigint;
  readonly orderType: number;
  readonly executionCondition: number;
  readonly cancellationType: string | null;
  /** A cancellation's refunded token (the base token: a sell was cancelled). */
  readonly token: string | null;
}

/** A recorded event's JSON (bigints as text) as the replay needs it. */
const big = (v: unknown) => (v === undefined || v === null ? 0n : BigInt(v as string));

export function recordedEvent(json: string): RecordedEvent {
  const e = JSON.parse(json) as Record<string, unknown>;
  return {
    type: e.type as string,
    client: (e.client as string | undefined) ?? '',
    orderId: big(e.orderId),
    side: (e.side as string | null | undefined) ?? null,
    quantity: big(e.quantity),
    price: big(e.price),
    crossIdentifier: big(e.crossIdentifier),
    orderType: (e.orderType as number | undefined) ?? 0,
    executionCondition: (e.executionCondition as number | undefined) ?? 0,
    cancellationType: (e.cancellationType as string | undefined) ?? null,
    token: (e.token as string | undefined) ?? null,
  };
}
