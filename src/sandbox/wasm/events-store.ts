/**
 * Contract events of the retained ledgers, in application order, with the real server's ids and cursors:
 * `%019d-%010d`, the operation id `(ledger << 32) | (txIndex << 12) | opIndex` and the event's index in its
 * transaction. A query scans from a start position (inclusive) or after a cursor up to an exclusive end
 * ledger, applies the filters (contract ids, topic segments with `*` and a trailing `**`) and stops at the limit.
 */
import type { EmittedEvent } from './host.ts';
import { scValBase64, type ScVal } from './scval.ts';

export interface StoredEvent {
  readonly ledger: number;
  readonly txIndex: number;
  readonly opIndex: number;
  readonly eventIndex: number;
  readonly id: string;
  readonly contractId: string;
  readonly topicB64: readonly string[];
  readonly valueB64: string;
  readonly txHash: string;
  readonly ledgerClosedAt: string;
  readonly topics: readonly ScVal[];
  readonly data: ScVal;
}

export interface EventFilter {
  /** Empty = any type. */
  readonly types: ReadonlySet<string>;
  readonly contractIds: readonly string[];
  /** Each topic filter is a list of segments: base64 ScVal, `*`, or a final `**`. */
  readonly topics: ReadonlyArray<readonly string[]>;
}

export interface Position {
  readonly ledger: number;
  readonly txIndex: number;
  readonly opIndex: number;
  readonly eventIndex: number;
}

export const TX_MASK = 0xfffff;
export const OP_MASK = 0xfff;
export const EVENT_MAX = 0xffffffff;

export function eventId(p: Position): string {
  const toid = (BigInt(p.ledger) << 32n) | (BigInt(p.txIndex) << 12n) | BigInt(p.opIndex);
  return `${toid.toString().padStart(19, '0')}-${p.eventIndex.toString().padStart(10, '0')}`;
}

/** Parses an event id / cursor; undefined when it is not one. */
export function parseCursor(s: string): Position | undefined {
  const m = /^(\d{1,19})-(\d{1,10})$/.exec(s);
  if (m === null) return undefined;
  const toid = BigInt(m[1] as string);
  const eventIndex = Number(m[2]);
  if (toid >= 1n << 63n || eventIndex > EVENT_MAX) return undefined;
  return {
    ledger: Number(toid >> 32n),
    txIndex: Number((toid >> 12n) & BigInt(TX_MASK)),
    opIndex: Number(toid & BigInt(OP_MASK)),
    eventIndex,
  };
}

function compare(a: Position, b: Position): number {
  return a.ledger - b.ledger || a.txIndex - b.txIndex || a.opIndex - b.opIndex || a.eventIndex - b.eventIndex;
}

function topicMatches(filter: readonly string[], topics: readonly string[]): boolean {
  const flexible = filter[filter.length - 1] === '**';
  const fixed = flexible ? filter.slice(0, -1) : filter;
  if (flexible ? topics.length < fixed.length : topics.length !== fixed.length) return false;
  return fixed.every((seg, i) => seg === '*' || seg === '**' || seg === topics[i]);
}

export function matches(f: EventFilter, e: StoredEvent): boolean {
  if (f.types.size > 0 && !f.types.has('contract')) return false;
  if (f.contractIds.length > 0 && !f.contractIds.includes(e.contractId)) return false;
  return f.topics.length === 0 || f.topics.some((t) => topicMatches(t, e.topicB64));
}

export class EventStore {
  private events: StoredEvent[] = [];
  private head = 0;

  add(e: StoredEvent): void {
    this.events.push(e);
  }

  /** Forgets events of ledgers before `oldest`. */
  trim(oldest: number): void {
    while (this.head < this.events.length && (this.events[this.head] as StoredEvent).ledger < oldest) this.head++;
    if (this.head > 4096 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** Events at or after `from`, before ledger `endLedger`, matching any filter (all when none), at most `limit`. */
  query(from: Position, endLedger: number, filters: readonly EventFilter[], limit: number): StoredEvent[] {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.events[mid] as StoredEvent, from) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: StoredEvent[] = [];
    for (let i = lo; i < this.events.length && out.length < limit; i++) {
      const e = this.events[i] as StoredEvent;
      if (e.ledger >= endLedger) break;
      if (filters.length === 0 || filters.some((f) => matches(f, e))) out.push(e);
    }
    return out;
  }
}

/**
 * The events of a closed ledger as stored: each batch is one transaction of the ledger (the operator's calls
 * first, then the applied transactions, in order), its events numbered from 0.
 */
export function ledgerEvents(
  ledger: { readonly seq: number; readonly closeTime: bigint },
  batches: readonly { readonly hash: string; readonly events: readonly EmittedEvent[] }[],
): StoredEvent[] {
  const closedAt = new Date(Number(ledger.closeTime) * 1000).toISOString().replace('.000Z', 'Z');
  return batches.flatMap((batch, batchIndex) =>
    batch.events.map((event, eventIndex): StoredEvent => {
      const position = { ledger: ledger.seq, txIndex: batchIndex + 1, opIndex: 0, eventIndex };
      return {
        ...position,
        id: eventId(position),
        contractId: event.contract,
        topicB64: event.topics.map(scValBase64),
        valueB64: scValBase64(event.data),
        txHash: batch.hash,
        ledgerClosedAt: closedAt,
        topics: event.topics,
        data: event.data,
      };
    }),
  );
}
