/**
 * The journal of signed transactions. A transaction is recorded as `signed` before it is broadcast, so that
 * after a crash every transaction that may have reached the chain is known and can be settled (looked up, or
 * re-broadcast byte for byte) instead of being sent again as a new one.
 */
import { commitNow, type Db } from './database.ts';

export type TxStatus = 'signed' | 'sent' | 'included' | 'failed' | 'dropped' | 'replaced';

export interface TxRecord {
  readonly txHash: string;
  readonly chain: 'evm' | 'wasm';
  /** The trading wallet the transaction acts for. */
  readonly wallet: string;
  /** The account that signs and whose nonce / sequence it uses (the wallet, or a chain B channel account). */
  readonly source: string;
  /** Nonce (chain A) or sequence number (chain B). */
  readonly sequence: bigint;
  readonly kind: 'place' | 'cancel' | 'approve' | 'trust' | 'replace' | 'noop';
  readonly clientOrderId: bigint | null;
  /** The signed transaction as broadcast (hex on chain A, base64 XDR envelope on chain B). */
  readonly raw: string;
  readonly status: TxStatus;
  readonly replacedBy: string | null;
  /** What the chain charged for it once included (native units: wei, stroops); null until known. */
  readonly fee?: bigint | null;
  readonly createdMs: number;
  readonly updatedMs: number;
}

export class TxJournal {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  recordSigned(tx: Omit<TxRecord, 'status' | 'replacedBy' | 'fee' | 'createdMs' | 'updatedMs'>): void {
    const now = this.#now();
    this.#db
      .prepare(
        `INSERT INTO transactions (tx_hash, chain, wallet, source, sequence, kind, client_order_id, raw, status, replaced_by, created_ms, updated_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'signed', NULL, ?, ?) ON CONFLICT (tx_hash) DO NOTHING`,
      )
      .run(
        tx.txHash,
        tx.chain,
        tx.wallet,
        tx.source,
        tx.sequence.toString(),
        tx.kind,
        tx.clientOrderId?.toString() ?? null,
        tx.raw,
        now,
        now,
      );
    // Written ahead: committed before the transaction can leave the process (see groupCommits).
    commitNow(this.#db);
  }

  /** `fee`: what an included (or failed on chain) transaction was charged, when the chain says it. */
  mark(txHash: string, status: TxStatus, replacedBy: string | null = null, fee: bigint | null = null): void {
    this.#db
      .prepare(
        'UPDATE transactions SET status = ?, replaced_by = COALESCE(?, replaced_by), fee = COALESCE(?, fee), updated_ms = ? WHERE tx_hash = ?',
      )
      .run(status, replacedBy, fee?.toString() ?? null, this.#now(), txHash);
  }

  /** Transactions signed in `[fromMs, toMs)`, oldest first. */
  signedBetween(fromMs: number, toMs: number): TxRecord[] {
    return this.#db
      .prepare('SELECT * FROM transactions WHERE created_ms >= ? AND created_ms < ? ORDER BY created_ms, rowid')
      .all(fromMs, toMs)
      .map((r) => fromRow(r as Record<string, string | number | null>));
  }

  get(txHash: string): TxRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM transactions WHERE tx_hash = ?').get(txHash);
    return row === undefined ? undefined : fromRow(row as Record<string, string | number | null>);
  }

  /** Transactions whose fate is not settled yet (signed or sent), by source account and sequence. */
  open(chain: 'evm' | 'wasm', source?: string): TxRecord[] {
    return this.#db
      .prepare(
        `SELECT * FROM transactions WHERE chain = ? AND status IN ('signed', 'sent') AND (? IS NULL OR source = ?)
         ORDER BY source, CAST(sequence AS INTEGER), created_ms`,
      )
      .all(chain, source ?? null, source ?? null)
      .map((r) => fromRow(r as Record<string, string | number | null>));
  }

  /** Transactions journalled for one of our orders (its placement), oldest first. */
  forOrder(wallet: string, clientOrderId: bigint): TxRecord[] {
    return this.#db
      .prepare(
        "SELECT * FROM transactions WHERE wallet = ? AND client_order_id = ? AND kind IN ('place', 'replace') ORDER BY created_ms, rowid",
      )
      .all(wallet, clientOrderId.toString())
      .map((r) => fromRow(r as Record<string, string | number | null>));
  }

  /** Every transaction signed at a given nonce / sequence of a source (originals and their replacements), in journal order. */
  atSequence(chain: 'evm' | 'wasm', source: string, sequence: bigint): TxRecord[] {
    return this.#db
      .prepare('SELECT * FROM transactions WHERE chain = ? AND source = ? AND sequence = ? ORDER BY created_ms, rowid')
      .all(chain, source, sequence.toString())
      .map((r) => fromRow(r as Record<string, string | number | null>));
  }
}

function fromRow(r: Record<string, string | number | null>): TxRecord {
  return {
    txHash: String(r.tx_hash),
    chain: r.chain as 'evm' | 'wasm',
    wallet: String(r.wallet),
    source: String(r.source),
    sequence: BigInt(r.sequence as string),
    kind: r.kind as TxRecord['kind'],
    clientOrderId: r.client_order_id === null ? null : BigInt(r.client_order_id as string),
    raw: String(r.raw),
    status: r.status as TxStatus,
    replacedBy: r.replaced_by === null ? null : String(r.replaced_by),
    fee: r.fee === null || r.fee === undefined ? null : BigInt(r.fee as string),
    createdMs: Number(r.created_ms),
    updatedMs: Number(r.updated_ms),
  };
}
