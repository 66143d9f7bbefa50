/**
 * Maker fills the token movements could not decide between (two splits paying the same amount), parked until
 * the chain tells: the candidate orders are cancelled, and each cancellation's remaining quantity (or its
 * absence from the book) fixes how much of it was filled. One open record per wallet, pair and side collects
 * every such movement until its candidates are all decided.
 */
import type { Side } from '../core/order-terms.ts';
import type { Db } from './database.ts';
import { toJson } from './json.ts';

export type CandidateFate =
  | {
      readonly kind: 'cancelled';
      readonly by: 'ByParticipant' | 'ByAdmin' | 'ByContract';
      readonly quantity: bigint;
      readonly key: string;
    }
  | { readonly kind: 'gone' };

export interface PendingCandidate {
  readonly clientOrderId: bigint;
  readonly orderId: bigint;
  readonly price: bigint;
  /** Remaining quantity when the candidate joined the record (before any parked fill). */
  readonly remaining: bigint;
  readonly fate: CandidateFate | null;
}

export interface PendingFill {
  readonly id: number;
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly pairId: string;
  readonly side: Side;
  readonly txHashes: readonly string[];
  readonly height: bigint;
  readonly atMs: number;
  readonly baseIn: bigint;
  readonly quoteIn: bigint;
  readonly options: ReadonlyArray<{ readonly filled: bigint; readonly price: bigint }>;
  readonly candidates: readonly PendingCandidate[];
}

interface Detail {
  txHashes: string[];
  options: Array<{ filled: string; price: string }>;
  candidates: Array<{
    clientOrderId: string;
    orderId: string;
    price: string;
    remaining: string;
    fate: null | { kind: 'gone' } | { kind: 'cancelled'; by: string; quantity: string; key: string };
  }>;
}

export class PendingFills {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  open(chain: 'evm' | 'wasm', wallet: string, pairId?: string, side?: Side): PendingFill[] {
    return this.#db
      .prepare(
        `SELECT * FROM pending_fills WHERE resolved_ms IS NULL AND chain = ? AND wallet = ? AND (? IS NULL OR pair_id = ?) AND (? IS NULL OR side = ?) ORDER BY id`,
      )
      .all(chain, wallet, pairId ?? null, pairId ?? null, side ?? null, side ?? null)
      .map((r) => fromRow(r as Record<string, string | number | null>));
  }

  create(p: Omit<PendingFill, 'id'>): number {
    const r = this.#db
      .prepare(
        `INSERT INTO pending_fills (chain, wallet, pair_id, side, tx_hash, height, at_ms, base_in, quote_in, detail_json, created_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        p.chain,
        p.wallet,
        p.pairId,
        p.side,
        p.txHashes[0] ?? '',
        p.height.toString(),
        p.atMs,
        p.baseIn.toString(),
        p.quoteIn.toString(),
        toJson(detailOf(p)),
        this.#now(),
      );
    return Number(r.lastInsertRowid);
  }

  /** Replaces the record's movements, transactions and candidates. */
  update(p: PendingFill): void {
    this.#db
      .prepare('UPDATE pending_fills SET base_in = ?, quote_in = ?, detail_json = ? WHERE id = ?')
      .run(p.baseIn.toString(), p.quoteIn.toString(), toJson(detailOf(p)), p.id);
  }

  resolve(id: number): void {
    this.#db.prepare('UPDATE pending_fills SET resolved_ms = ? WHERE id = ?').run(this.#now(), id);
  }
}

function detailOf(p: Omit<PendingFill, 'id'>): Detail {
  return {
    txHashes: [...p.txHashes],
    options: p.options.map((o) => ({ filled: o.filled.toString(), price: o.price.toString() })),
    candidates: p.candidates.map((c) => ({
      clientOrderId: c.clientOrderId.toString(),
      orderId: c.orderId.toString(),
      price: c.price.toString(),
      remaining: c.remaining.toString(),
      fate:
        c.fate === null
          ? null
          : c.fate.kind === 'gone'
            ? { kind: 'gone' }
            : { kind: 'cancelled', by: c.fate.by, quantity: c.fate.quantity.toString(), key: c.fate.key },
    })),
  };
}

function fromRow(r: Record<string, string | number | null>): PendingFill {
  const d = JSON.parse(String(r.detail_json)) as Detail;
  return {
    id: Number(r.id),
    chain: r.chain as 'evm' | 'wasm',
    wallet: String(r.wallet),
    pairId: String(r.pair_id),
    side: r.side as Side,
    txHashes: d.txHashes,
    height: BigInt(r.height as string),
    atMs: Number(r.at_ms),
    baseIn: BigInt(r.base_in as string),
    quoteIn: BigInt(r.quote_in as string),
    options: d.options.map((o) => ({ filled: BigInt(o.filled), price: BigInt(o.price) })),
    candidates: d.candidates.map((c) => ({
      clientOrderId: BigInt(c.clientOrderId),
      orderId: BigInt(c.orderId),
      price: BigInt(c.price),
      remaining: BigInt(c.remaining),
      fate:
        c.fate === null
          ? null
          : c.fate.kind === 'gone'
            ? { kind: 'gone' }
            : {
                kind: 'cancelled',
                by: c.fate.by as 'ByParticipant' | 'ByAdmin' | 'ByContract',
                quantity: BigInt(c.fate.quantity),
                key: c.fate.key,
              },
    })),
  };
}
