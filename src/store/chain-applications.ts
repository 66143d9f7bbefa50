/**
 * Chain A transactions the engine has applied, with the block it saw them in. One applied from a receipt is
 * `unconfirmed` until the event follower's confirmed batch shows the same transaction in the same block; one
 * the follower applied is confirmed at once, and listed only so that a reorganisation deeper than the
 * confirmation depth can mark it unconfirmed again. Confirmed rows are pruned once far below the cursor.
 */
import type { Db } from './database.ts';

export type ApplicationKind = 'place' | 'cancel' | 'events';

export interface ChainApplication {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly txHash: string;
  readonly blockHash: string;
  readonly height: bigint;
  /** The order whose placement or cancellation outcome this was; null for a transaction the follower applied. */
  readonly clientOrderId: bigint | null;
  readonly kind: ApplicationKind;
  readonly confirmed: boolean;
  readonly createdMs: number;
}

type Key = Pick<ChainApplication, 'chain' | 'wallet' | 'txHash' | 'blockHash'>;

export class ChainApplications {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /** Records an application; a row already there keeps its order and is never downgraded from confirmed. */
  record(a: Omit<ChainApplication, 'createdMs'>): void {
    this.#db
      .prepare(
        `INSERT INTO chain_applications (chain, wallet, tx_hash, block_hash, height, client_order_id, kind, confirmed, created_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (chain, wallet, tx_hash, block_hash) DO UPDATE SET
           confirmed = MAX(confirmed, excluded.confirmed),
           client_order_id = COALESCE(client_order_id, excluded.client_order_id),
           kind = CASE WHEN kind = 'events' THEN excluded.kind ELSE kind END`,
      )
      .run(
        a.chain,
        a.wallet,
        a.txHash,
        a.blockHash,
        a.height,
        a.clientOrderId?.toString() ?? null,
        a.kind,
        a.confirmed ? 1 : 0,
        this.#now(),
      );
  }

  get(k: Key): ChainApplication | undefined {
    const r = this.#db
      .prepare('SELECT * FROM chain_applications WHERE chain = ? AND wallet = ? AND tx_hash = ? AND block_hash = ?')
      .get(k.chain, k.wallet, k.txHash, k.blockHash);
    return r === undefined ? undefined : fromRow(r as Record<string, string | number | null>);
  }

  /** Every application of a transaction, in any block. */
  ofTx(chain: 'evm' | 'wasm', wallet: string, txHash: string): ChainApplication[] {
    return (
      this.#db
        // `+height`: sorted after the key's own index finds the rows (the height index would scan the wallet's day).
        .prepare('SELECT * FROM chain_applications WHERE chain = ? AND wallet = ? AND tx_hash = ? ORDER BY +height')
        .all(chain, wallet, txHash)
        .map((r) => fromRow(r as Record<string, string | number | null>))
    );
  }

  unconfirmed(chain: 'evm' | 'wasm', wallet: string): ChainApplication[] {
    return this.#db
      .prepare(
        // The open rows' own index: the planner would take the height index and read the wallet's whole day.
        'SELECT * FROM chain_applications INDEXED BY chain_applications_open WHERE chain = ? AND wallet = ? AND confirmed = 0 ORDER BY height, created_ms',
      )
      .all(chain, wallet)
      .map((r) => fromRow(r as Record<string, string | number | null>));
  }

  confirm(k: Key): void {
    this.#db
      .prepare(
        'UPDATE chain_applications SET confirmed = 1 WHERE chain = ? AND wallet = ? AND tx_hash = ? AND block_hash = ?',
      )
      .run(k.chain, k.wallet, k.txHash, k.blockHash);
  }

  remove(k: Key): void {
    this.#db
      .prepare('DELETE FROM chain_applications WHERE chain = ? AND wallet = ? AND tx_hash = ? AND block_hash = ?')
      .run(k.chain, k.wallet, k.txHash, k.blockHash);
  }

  /** A reorganisation deeper than the confirmation depth: everything from `height` up is to be seen again. */
  unconfirmFrom(chain: 'evm' | 'wasm', wallet: string, height: bigint): number {
    const r = this.#db
      .prepare(
        'UPDATE chain_applications SET confirmed = 0 WHERE chain = ? AND wallet = ? AND height >= ? AND confirmed = 1',
      )
      .run(chain, wallet, height);
    return Number(r.changes);
  }

  /** Forgets applications below `height` that are confirmed, or that have no event to be confirmed by. */
  prune(chain: 'evm' | 'wasm', wallet: string, height: bigint): void {
    this.#db
      .prepare('DELETE FROM chain_applications WHERE chain = ? AND wallet = ? AND height < ?')
      .run(chain, wallet, height);
  }
}

function fromRow(r: Record<string, string | number | null>): ChainApplication {
  return {
    chain: r.chain as 'evm' | 'wasm',
    wallet: String(r.wallet),
    txHash: String(r.tx_hash),
    blockHash: String(r.block_hash),
    height: BigInt(r.height as number),
    clientOrderId: r.client_order_id === null ? null : BigInt(r.client_order_id as string),
    kind: r.kind as ApplicationKind,
    confirmed: Number(r.confirmed) === 1,
    createdMs: Number(r.created_ms),
  };
}
