/**
 * The contract events of one included transaction, read from its TransactionMeta (v4: per operation; v3:
 * the Soroban meta of its single operation) or, failing that, from the `events.contractEventsXdr` newer nodes
 * add to getTransaction. Each carries the id getEvents gives it, `%019d-%010d` of the operation id
 * `(ledger << 32) | (applicationOrder << 12) | opIndex` and the event's index, so the outcome of a submission
 * and the event follower name the same event the same way.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import type { ScVal } from './scval.ts';

export interface TxEvent {
  readonly contractId: string;
  readonly topics: readonly ScVal[];
  readonly data: ScVal;
  readonly opIndex: number;
  readonly eventIndex: number;
}

export function eventId(ledger: number, applicationOrder: number, opIndex: number, eventIndex: number): string {
  const toid = (BigInt(ledger) << 32n) | (BigInt(applicationOrder) << 12n) | BigInt(opIndex);
  return `${toid.toString().padStart(19, '0')}-${eventIndex.toString().padStart(10, '0')}`;
}

/** The ledger of an event id or cursor; null when it is not one. */
export function ledgerOfEventId(id: string): number | null {
  const m = /^(\d{1,19})-\d{1,10}$/.exec(id);
  return m === null ? null : Number(BigInt(m[1] as string) >> 32n);
}

/**
 * The transaction of an event id (its ledger and application order, the operation index dropped): the
 * events of one transaction share it and follow each other in id order. Null when it is not an id.
 */
export function transactionOfEventId(id: string): bigint | null {
  const m = /^(\d{1,19})-\d{1,10}$/.exec(id);
  return m === null ? null : BigInt(m[1] as string) >> 12n;
}

/** The cursor just after every event of `ledger`: polling from it starts with the next ledger. */
/** Event ids and cursors are fixed-width `%019d-%010d`; compared as numbers to be safe with any width. */
function order(id: string): [bigint, bigint] {
  const [toid, index] = id.split('-');
  return [BigInt(toid ?? '0'), BigInt(index ?? '0')];
}

export function compareIds(a: string, b: string): number {
  const [x, i] = order(a);
  const [y, j] = order(b);
  return x < y ? -1 : x > y ? 1 : i < j ? -1 : i > j ? 1 : 0;
}

export function endOfLedgerCursor(ledger: number): string {
  return eventId(ledger, 0xfffff, 0xfff, 0xffffffff);
}

function fromWire(events: readonly xdr.ContractEventWire[], opIndex: number): TxEvent[] {
  const out: TxEvent[] = [];
  events.forEach((e, eventIndex) => {
    if (e.type !== 1 || e.contractId === null || e.body.v !== 0) return;
    out.push({
      contractId: StrKey.encodeContract(Buffer.from(e.contractId)),
      topics: e.body.v0.topics,
      data: e.body.v0.data,
      opIndex,
      eventIndex,
    });
  });
  return out;
}

/** Contract events of the transaction; throws when neither the meta nor the events list decodes. */
export function transactionEvents(reply: {
  resultMetaXdr: string | null;
  contractEventsXdr: ReadonlyArray<readonly string[]> | null;
}): TxEvent[] {
  if (reply.resultMetaXdr !== null) {
    const meta = xdr.TransactionMeta.schema.decode(Buffer.from(reply.resultMetaXdr, 'base64'));
    if (meta.v === 4) return meta.v4.operations.flatMap((op, i) => fromWire(op.events, i));
    if (meta.v === 3) return meta.v3.sorobanMeta === null ? [] : fromWire(meta.v3.sorobanMeta.events, 0);
  }
  if (reply.contractEventsXdr !== null) {
    return reply.contractEventsXdr.flatMap((list, i) =>
      fromWire(
        list.map((b64) => xdr.ContractEvent.schema.decode(Buffer.from(b64, 'base64'))),
        i,
      ),
    );
  }
  throw new Error('the transaction reply carries neither a readable meta nor an events list');
}
