/**
 * The chain B event follower: polls getEvents on a timer for the order book events whose `client` topic is
 * the wallet and for the SEP-41 `transfer` events to or from the wallet on the pairs' tokens, and delivers
 * them in chain order with the cursor to resume from (Soroban does not reorganise: every event is
 * confirmed). For the transactions where our tokens moved with a book, the trade events of the other
 * clients' incoming orders come too (`counterparty-trades.ts`: they carry the execution price of our maker
 * fills), and a notice never holds part of a transaction. The RPC takes at most five filters per request;
 * with more, the filter groups are polled from the same cursor and only events up to the point every group
 * has scanned are delivered, so the merged stream stays in order. A cursor the node no longer retains is
 * reported as a `gap` (the engine then reconciles in full) and following resumes at the oldest retained
 * ledger. A malformed event is counted, logged and skipped; the cursor moves past it.
 */
import { WOKEN } from '../../core/clock.ts';
import { CHAIN_NODE, reportedRound } from '../../telemetry/incidents.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { ChainEvent, EventCursor, Follower, FollowerNotice, PairBinding } from '../types.ts';
import { decodeRpcEvent, EventBindings, rawEventId } from './event-decoder.ts';
import { rpcErrorCode } from './json-rpc.ts';
import type { WasmMetrics } from './metrics.ts';
import type { FollowerOptions, Sleep } from './options.ts';
import type { EventsPage, WasmRpc } from './rpc-client.ts';
import { encodeScVal, Malformed, scv } from './scval.ts';
import { readCounterpartyTrades } from './counterparty-trades.ts';
import { compareIds, endOfLedgerCursor, ledgerOfEventId, transactionOfEventId } from './tx-events.ts';

export interface FollowerDeps {
  readonly rpc: WasmRpc;
  readonly metrics: WasmMetrics;
  readonly logger: Logger;
  readonly clock: { now(): number };
  readonly sleep: Sleep;
  readonly options: FollowerOptions;
  readonly wallet: string;
  /** How often ledgers close, as configured: a round that reached the head waits for the next one. */
  readonly ledgerCloseMs: number;
}

type Json = Record<string, unknown>;
type Position = { readonly cursor: string } | { readonly startLedger: number };

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** getEvents filters for the wallet, grouped five to a request. */
export function filterGroups(wallet: string, pairs: readonly PairBinding[]): Json[][] {
  const me = encodeScVal(scv.address(wallet));
  const transfer = encodeScVal(scv.sym('transfer'));
  const books = [...new Set(pairs.map((p) => p.orderBook))];
  const tokens = [...new Set(pairs.flatMap((p) => [p.baseToken, p.quoteToken]))];
  const filters: Json[] = [
    ...chunk(books, 5).map((ids) => ({ type: 'contract', contractIds: ids, topics: [['*', me, '**']] })),
    ...chunk(tokens, 5).map((ids) => ({
      type: 'contract',
      contractIds: ids,
      topics: [
        [transfer, me, '**'],
        [transfer, '*', me, '**'],
      ],
    })),
  ];
  return chunk(filters, 5);
}

function isRangeError(e: unknown): boolean {
  return (
    rpcErrorCode(e) === -32600 || (e instanceof Error && /ledger range|oldest ledger|must be between/i.test(e.message))
  );
}

class GapFound extends Error {}

/** Whether an event id lies after the position and at or before `end`. */
function inWindow(id: string, from: Position, end: string): boolean {
  if (compareIds(id, end) > 0) return false;
  return 'cursor' in from ? compareIds(id, from.cursor) > 0 : (ledgerOfEventId(id) ?? 0) >= from.startLedger;
}

/**
 * The window without its last transaction, ending at the event before it, so no notice carries part of a
 * transaction; unchanged when the window holds that transaction only (it is longer than a page: it goes on).
 */
function wholeTransactions<T extends { readonly id: string }>(
  raw: readonly T[],
  end: string,
): { raw: T[]; end: string } {
  const last = transactionOfEventId(end);
  const kept = raw.filter((r) => {
    const tx = transactionOfEventId(r.id);
    return tx !== null && last !== null && tx < last;
  });
  const before = kept.at(-1);
  return before === undefined ? { raw: [...raw], end } : { raw: kept, end: before.id };
}

export class WasmFollower implements Follower {
  readonly #deps: FollowerDeps;
  readonly #bindings: EventBindings;
  readonly #groups: Json[][];
  readonly #onNotice: (n: FollowerNotice) => Promise<void>;
  readonly #stop = new AbortController();
  /** Aborted by `poll()`: the pause between rounds ends early. */
  #wake = new AbortController();
  readonly #done: Promise<void>;
  #position: Position | null;
  #lastDeliveredLedger = 0;
  /** The newest ledger the last round read to the end (null: it did not, or failed). */
  #head: number | null = null;

  constructor(
    d: FollowerDeps,
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (n: FollowerNotice) => Promise<void>,
  ) {
    this.#deps = d;
    this.#bindings = new EventBindings(d.wallet, pairs);
    this.#groups = filterGroups(d.wallet, pairs);
    this.#onNotice = onNotice;
    this.#position = from?.chain === 'wasm' ? { cursor: from.cursor } : null;
    this.#lastDeliveredLedger = from?.chain === 'wasm' ? Number(from.height) : 0;
    this.#done = this.#run();
  }

  /** The next round starts now instead of after the poll interval (a round under way finishes first). */
  poll(): void {
    this.#wake.abort(WOKEN);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#done;
  }

  async #run(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      this.#head = null;
      await reportedRound(this.#deps.logger, this.#deps.clock, CHAIN_NODE.wasm, 'follower round', () => this.#round());
      const { sleep, options, clock, ledgerCloseMs: closeMs } = this.#deps;
      const signal = AbortSignal.any([this.#stop.signal, this.#wake.signal]);
      const wait = { minMs: options.pollIntervalMs, closeMs, nowMs: clock.now(), sleep, signal };
      // At the head, nothing new can show before the next ledger closes (or a reply of the node names it).
      if (this.#head !== null) await this.#deps.rpc.ledgers.next(this.#head, wait);
      else await sleep(options.pollIntervalMs, signal).catch(() => undefined);
      if (this.#wake.signal.aborted) this.#wake = new AbortController();
    }
  }

  #positionLedger(p: Position): number {
    return 'cursor' in p ? (ledgerOfEventId(p.cursor) ?? 0) : p.startLedger - 1;
  }

  async #round(attempt = 0): Promise<void> {
    if (this.#position === null) {
      const latest = await this.#deps.rpc.latestLedger();
      const start = endOfLedgerCursor(latest.sequence);
      // Starting from nothing, the follower says where it starts before anything else, so that the position is
      // durable at once: a process killed before its first event would otherwise restart from the ledger of
      // that later moment and never see what happened in between.
      await this.#onNotice({
        kind: 'events',
        events: [],
        confirmed: true,
        cursor: { chain: 'wasm', cursor: start, height: BigInt(latest.sequence) },
      });
      this.#position = { cursor: start };
      this.#lastDeliveredLedger = latest.sequence;
    }
    const from = this.#position;
    let scanned;
    try {
      scanned = await Promise.all(this.#groups.map((filters) => this.#scan(filters, from)));
    } catch (e) {
      // Repositioned at the oldest retained ledger: follow on from there at once.
      if (e instanceof GapFound && attempt < 2) return this.#round(attempt + 1);
      throw e;
    }
    let end = scanned.map((s) => s.end).reduce((a, b) => (compareIds(a, b) <= 0 ? a : b));
    const latest = Math.max(...scanned.map((s) => s.latestLedger));
    if (!scanned.some((s) => s.cut)) this.#head = latest;
    const seen = new Set<string>();
    let raw = scanned
      .flatMap((s) => s.events)
      .filter((e) => compareIds(e.id, end) <= 0 && !seen.has(e.id) && seen.add(e.id))
      .toSorted((a, b) => compareIds(a.id, b.id));
    // A page cut the window: its last transaction may go on past it, so it is read whole next round.
    if (scanned.some((s) => s.cut && s.end === end)) ({ raw, end } = wholeTransactions(raw, end));
    const ours: ChainEvent[] = [];
    for (const r of raw) {
      try {
        const decoded = decodeRpcEvent(this.#bindings, r.raw);
        if (decoded !== null) ours.push(decoded);
      } catch (e) {
        this.#malformed(e, r.id);
      }
    }
    const trades = await readCounterpartyTrades(
      {
        rpc: this.#deps.rpc,
        bindings: this.#bindings,
        pageLimit: this.#deps.options.pageLimit,
        malformed: (e, eventId) => this.#malformed(e, eventId),
      },
      ours,
      (id) => inWindow(id, from, end),
      seen,
    );
    const events = trades.length === 0 ? ours : [...ours, ...trades].toSorted((a, b) => compareIds(a.key, b.key));
    const height = ledgerOfEventId(end) ?? this.#positionLedger(from);
    const cursor: EventCursor = { chain: 'wasm', cursor: end, height: BigInt(height) };
    if (events.length > 0 || height - this.#lastDeliveredLedger >= this.#deps.options.cursorHeartbeatLedgers) {
      await this.#onNotice({ kind: 'events', events, confirmed: true, cursor });
      this.#lastDeliveredLedger = height;
      for (const e of events) this.#deps.metrics.eventsDelivered.inc({ type: e.type });
    }
    this.#position = { cursor: end };
    const behind = Math.max(0, latest - height);
    this.#deps.metrics.followerLag.set(behind);
    await this.#onNotice({
      kind: 'lag',
      behind: BigInt(behind),
      covered: BigInt(this.#completeThrough(this.#position)),
    });
  }

  #malformed(e: unknown, eventId: string | null): void {
    if (!(e instanceof Malformed)) throw e;
    this.#deps.metrics.malformed.inc({ source: 'follower' });
    this.#deps.logger.warn({ eventId, err: e.message }, 'malformed chain B event skipped');
  }

  /** Pages one filter group from the position; the scanned end is the last cursor the node gave, cut when a page limit stopped it. */
  async #scan(
    filters: Json[],
    from: Position,
  ): Promise<{ events: Array<{ id: string; raw: unknown }>; end: string; cut: boolean; latestLedger: number }> {
    const events: Array<{ id: string; raw: unknown }> = [];
    let page: EventsPage;
    let request = 'cursor' in from ? { cursor: from.cursor } : { startLedger: from.startLedger };
    for (let n = 0; ; n++) {
      try {
        page = await this.#deps.rpc.events({ ...request, filters, limit: this.#deps.options.pageLimit });
      } catch (e) {
        if (n === 0 && isRangeError(e)) await this.#checkGap(from, e);
        throw e;
      }
      for (const raw of page.events) {
        const id = rawEventId(raw);
        if (id !== null) events.push({ id: id.id, raw });
        else {
          this.#deps.metrics.malformed.inc({ source: 'follower' });
          this.#deps.logger.warn('chain B event without id or ledger skipped');
        }
      }
      if (page.events.length < this.#deps.options.pageLimit || n + 1 >= this.#deps.options.maxPagesPerRound) break;
      request = { cursor: page.cursor };
    }
    return {
      events,
      end: page.cursor,
      cut: page.events.length >= this.#deps.options.pageLimit,
      latestLedger: page.latestLedger,
    };
  }

  /** The last ledger whose events are all behind the position. */
  #completeThrough(p: Position): number {
    if (!('cursor' in p)) return p.startLedger - 1;
    const ledger = ledgerOfEventId(p.cursor) ?? 0;
    return p.cursor === endOfLedgerCursor(ledger) ? ledger : ledger - 1;
  }

  /**
   * The node refused the start. Older than what it retains: report the gap (once: the position moves on to
   * the oldest retained ledger first). Just behind it with nothing lost: move on quietly.
   */
  async #checkGap(from: Position, cause: unknown): Promise<void> {
    const health = await this.#deps.rpc.health();
    if (this.#positionLedger(from) >= health.oldestLedger) return;
    this.#position = { startLedger: health.oldestLedger };
    if (this.#completeThrough(from) + 1 >= health.oldestLedger)
      throw new GapFound('repositioned at the oldest retained ledger');
    this.#deps.metrics.followerGaps.inc();
    const fromCursor: EventCursor | null =
      'cursor' in from ? { chain: 'wasm', cursor: from.cursor, height: BigInt(this.#positionLedger(from)) } : null;
    this.#deps.logger.error(
      {
        from: 'cursor' in from ? from.cursor : from.startLedger,
        oldestAvailable: health.oldestLedger,
        err: cause instanceof Error ? cause.message : String(cause),
      },
      'chain B events were lost: the cursor is older than the node retains; a full reconciliation is needed',
    );
    await this.#onNotice({ kind: 'gap', from: fromCursor, oldestAvailable: BigInt(health.oldestLedger) });
    throw new GapFound('gap reported');
  }
}
