/**
 * The trade events of other clients' incoming orders that filled resting orders of ours. The follower asks
 * getEvents for the books' events by the `client` topic, so another client's `NewBuyInitiatedTrade` /
 * `NewSellInitiatedTrade` never comes with the transfers its fill caused, and without its execution price the
 * quote a pre-funded resting sell receives can fit two fills. Every transaction in which our tokens moved to
 * or from a followed book needs them, except our own placements and cancellations (the only incoming order of
 * the one is ours, whose trade event is followed already; the other trades nothing). One getEvents per ledger
 * holding such a transaction (more only for a ledger with more trade events than a page, or more than 25
 * books) asks those books for both trade events over that ledger; the ones of those transactions are kept.
 */
import type { ChainEvent } from '../types.ts';
import { decodeRpcEvent, rawEventId, type EventBindings } from './event-decoder.ts';
import type { WasmRpc } from './rpc-client.ts';
import { encodeScVal, Malformed, scv } from './scval.ts';

type Json = Record<string, unknown>;

export interface TradeQuery {
  readonly ledger: number;
  /** Order book contract ids our tokens moved with in the ledger. */
  readonly books: readonly string[];
  /** Transaction hash -> the pairs whose books our tokens moved with in it. */
  readonly txs: ReadonlyMap<string, ReadonlySet<string>>;
}

function ownTransaction(e: ChainEvent): boolean {
  return e.type === 'OrderReceived' || (e.type === 'OrderCancelled' && e.cancellationType === 'ByParticipant');
}

/** The queries for a window's events (our order book events and our transfers), one per ledger that needs one. */
export function tradeQueries(events: readonly ChainEvent[], b: EventBindings): TradeQuery[] {
  const own = new Set(events.filter(ownTransaction).map((e) => e.txHash));
  const ledgers = new Map<number, { books: Set<string>; txs: Map<string, Set<string>> }>();
  for (const e of events) {
    if (e.type !== 'Transfer' || own.has(e.txHash)) continue;
    const book = e.from === b.wallet ? e.to : e.from;
    const pair = b.books.get(book);
    if (pair === undefined) continue;
    const ledger = Number(e.height);
    const q = ledgers.get(ledger) ?? { books: new Set<string>(), txs: new Map<string, Set<string>>() };
    ledgers.set(ledger, q);
    q.books.add(book);
    q.txs.set(e.txHash, (q.txs.get(e.txHash) ?? new Set<string>()).add(pair.pairId));
  }
  return [...ledgers].map(([ledger, q]) => ({ ledger, books: [...q.books], txs: q.txs }));
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** getEvents filters for the books' trade events: five books to a filter, five filters to a request. */
export function tradeFilterGroups(books: readonly string[]): Json[][] {
  const topics = [
    [encodeScVal(scv.sym('NewBuyInitiatedTrade')), '**'],
    [encodeScVal(scv.sym('NewSellInitiatedTrade')), '**'],
  ];
  return chunk(
    chunk(books, 5).map((ids) => ({ type: 'contract', contractIds: ids, topics })),
    5,
  );
}

/** Whether a decoded event of the query's reply is a trade event of one of its transactions, on a book our tokens moved with. */
export function isWanted(q: TradeQuery, e: ChainEvent): boolean {
  return e.type === 'Trade' && (q.txs.get(e.txHash)?.has(e.pairId) ?? false);
}

export interface TradeReadDeps {
  readonly rpc: WasmRpc;
  readonly bindings: EventBindings;
  readonly pageLimit: number;
  /** Counts and logs a malformed event (rethrows anything else). */
  readonly malformed: (e: unknown, eventId: string | null) => void;
}

const LEDGER_BATCH = 8;

/**
 * The trade events of other clients in the transactions of `ours` where our tokens moved with a book: one
 * query per ledger, a few ledgers at a time, and only events `inWindow` and not `seen` (a resume never
 * repeats one); the ids kept join `seen`.
 */
export async function readCounterpartyTrades(
  deps: TradeReadDeps,
  ours: readonly ChainEvent[],
  inWindow: (id: string) => boolean,
  seen: Set<string>,
): Promise<ChainEvent[]> {
  const queries = tradeQueries(ours, deps.bindings);
  const out: ChainEvent[] = [];
  for (let i = 0; i < queries.length; i += LEDGER_BATCH) {
    const batch = queries.slice(i, i + LEDGER_BATCH);
    const replies = await Promise.all(
      batch.map((q) => Promise.all(tradeFilterGroups(q.books).map((filters) => ledgerEvents(deps, q.ledger, filters)))),
    );
    batch.forEach((q, k) => {
      for (const raw of (replies[k] ?? []).flat()) {
        const id = rawEventId(raw);
        if (id === null) {
          deps.malformed(new Malformed('event without id or ledger'), null);
          continue;
        }
        if (id.ledger !== q.ledger || !inWindow(id.id) || seen.has(id.id)) continue;
        seen.add(id.id);
        try {
          const e = decodeRpcEvent(deps.bindings, raw, true);
          if (e !== null && isWanted(q, e)) out.push(e);
        } catch (e) {
          deps.malformed(e, id.id);
        }
      }
    });
  }
  return out;
}

/** The events of one ledger that match the filters: a page, or more for a ledger with more than a page of them. */
async function ledgerEvents(deps: TradeReadDeps, ledger: number, filters: Json[]): Promise<unknown[]> {
  const limit = deps.pageLimit;
  let page = await deps.rpc.events({ startLedger: ledger, endLedger: ledger + 1, filters, limit });
  const out = [...page.events];
  // A cursor cannot be combined with a range: the next pages may run past the ledger, and stop there.
  while (page.events.length >= limit && (rawEventId(page.events.at(-1))?.ledger ?? ledger + 1) <= ledger) {
    page = await deps.rpc.events({ cursor: page.cursor, filters, limit });
    out.push(...page.events);
  }
  return out;
}
