/**
 * getEvents with the real server's rules: `startLedger` (optionally `endLedger`, exclusive) or a pagination
 * cursor, never both; at most 5 filters of at most 5 contract ids and 5 topic filters; topic segments are
 * base64 ScVals, `*`, or a final `**`; limit default 100, at most 10000; a start outside the retained ledgers
 * is an invalid request. The answer's cursor is the last event's id when the page is full, else the end of
 * the scanned window, so polling with it never misses or repeats an event.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import type { WasmEmulator } from './emulator.ts';
import { EVENT_MAX, eventId, OP_MASK, parseCursor, TX_MASK, type EventFilter, type Position } from './events-store.ts';
import { RpcError } from './rpc-error.ts';

const LEDGER_SCAN_LIMIT = 10_000;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(message: string): RpcError {
  return new RpcError(-32602, message);
}

function parseSegment(seg: unknown, where: string): string {
  if (typeof seg !== 'string') throw invalid(`${where}: segment must be a string`);
  if (seg === '*' || seg === '**') return seg;
  try {
    xdr.ScVal.fromXdr(seg, 'base64');
  } catch {
    throw invalid(`${where}: segment is not a base64 ScVal`);
  }
  return seg;
}

function parseFilter(f: unknown, i: number): EventFilter {
  const where = `filter ${i + 1} invalid`;
  if (!isObject(f)) throw invalid(`${where}: not an object`);
  const types = new Set<string>();
  if (f.type !== undefined && f.type !== '') {
    if (typeof f.type !== 'string') throw invalid(`${where}: type must be a string`);
    for (const t of f.type.split(',')) {
      if (t !== 'contract' && t !== 'system')
        throw invalid(`${where}: filter type invalid: if set, type must be either 'system' or 'contract'`);
      types.add(t);
    }
  }
  const ids = f.contractIds ?? [];
  if (!Array.isArray(ids)) throw invalid(`${where}: contractIds must be an array`);
  if (ids.length > 5) throw invalid(`${where}: maximum 5 contract IDs per filter`);
  ids.forEach((id, k) => {
    if (typeof id !== 'string' || !StrKey.isValidContract(id)) throw invalid(`${where}: contract ID ${k + 1} invalid`);
  });
  const topics = f.topics ?? [];
  if (!Array.isArray(topics)) throw invalid(`${where}: topics must be an array`);
  if (topics.length > 5) throw invalid(`${where}: maximum 5 topics per filter`);
  const parsed = topics.map((t, k) => {
    const tw = `${where}: topic ${k + 1} invalid`;
    if (!Array.isArray(t) || t.length === 0) throw invalid(`${tw}: topic must have at least 1 segment`);
    const segs = t.map((s, n) => parseSegment(s, `${tw}: segment ${n + 1} invalid`));
    const fixed = segs[segs.length - 1] === '**' ? segs.slice(0, -1) : segs;
    if (fixed.includes('**')) throw invalid(`${tw}: wildcard '**' is only allowed as the last segment`);
    if (fixed.length > 4) throw invalid(`${tw}: topic cannot have more than 4 segments`);
    return segs;
  });
  return { types, contractIds: ids as string[], topics: parsed };
}

export function getEvents(emu: WasmEmulator, params: unknown): Json {
  if (!isObject(params)) throw invalid('params must be an object');
  const pagination = params.pagination;
  if (pagination !== undefined && pagination !== null && !isObject(pagination))
    throw invalid('pagination must be an object');
  const cursorText = isObject(pagination) ? pagination.cursor : undefined;
  const limitRaw = isObject(pagination) ? pagination.limit : undefined;
  const startLedger = params.startLedger ?? 0;
  const endLedgerReq = params.endLedger ?? 0;
  if (typeof startLedger !== 'number' || !Number.isInteger(startLedger) || startLedger < 0)
    throw invalid('startLedger must be a positive integer');
  if (typeof endLedgerReq !== 'number' || !Number.isInteger(endLedgerReq) || endLedgerReq < 0)
    throw invalid('endLedger must be a positive integer');
  if (limitRaw !== undefined && (typeof limitRaw !== 'number' || !Number.isInteger(limitRaw) || limitRaw < 0))
    throw invalid('limit must be a positive integer');
  let start: Position;
  if (cursorText !== undefined && cursorText !== '') {
    if (startLedger !== 0 || endLedgerReq !== 0) throw invalid('ledger ranges and cursor cannot both be set');
    const c = typeof cursorText === 'string' ? parseCursor(cursorText) : undefined;
    if (c === undefined) throw invalid(`invalid cursor ${JSON.stringify(cursorText)}`);
    // A cursor resumes strictly after the event it names.
    start = { ...c, eventIndex: c.eventIndex + 1 };
  } else {
    if (startLedger <= 0) throw invalid('startLedger must be positive');
    start = { ledger: startLedger, txIndex: 0, opIndex: 0, eventIndex: 0 };
  }
  const limit = limitRaw === undefined || limitRaw === 0 ? DEFAULT_LIMIT : limitRaw;
  if (limit > MAX_LIMIT) throw invalid(`limit must not exceed ${MAX_LIMIT}`);
  const filtersRaw = params.filters ?? [];
  if (!Array.isArray(filtersRaw)) throw invalid('filters must be an array');
  if (filtersRaw.length > 5) throw invalid('maximum 5 filters per request');
  const filters = filtersRaw.map(parseFilter);

  const latest = emu.latest;
  const oldest = emu.oldest;
  if (start.ledger < oldest.seq || start.ledger > latest.seq) {
    throw new RpcError(-32600, `startLedger must be within the ledger range: ${oldest.seq} - ${latest.seq}`);
  }
  let endLedger = Math.min(start.ledger + LEDGER_SCAN_LIMIT, latest.seq + 1);
  if (endLedgerReq !== 0) endLedger = Math.min(endLedgerReq, endLedger);
  const found = emu.events().query(start, endLedger, filters, limit);
  const cursor =
    found.length === limit
      ? (found[found.length - 1]?.id ?? '')
      : eventId({ ledger: endLedger - 1, txIndex: TX_MASK, opIndex: OP_MASK, eventIndex: EVENT_MAX });
  return {
    events: found.map((e) => ({
      type: 'contract',
      ledger: e.ledger,
      ledgerClosedAt: e.ledgerClosedAt,
      contractId: e.contractId,
      id: e.id,
      operationIndex: e.opIndex,
      transactionIndex: e.txIndex,
      txHash: e.txHash,
      inSuccessfulContractCall: true,
      topic: e.topicB64,
      value: e.valueB64,
    })),
    cursor,
    latestLedger: latest.seq,
    oldestLedger: oldest.seq,
    latestLedgerCloseTime: latest.closeTime.toString(),
    oldestLedgerCloseTime: oldest.closeTime.toString(),
  };
}
