/**
 * What the adapters need from durable storage, declared here so that chains depend on these interfaces and
 * not on a store: the journal of signed transactions, the followers' cursors and the approvals the adapters
 * record. The composition root passes the store's classes, which satisfy them structurally.
 */

export type TxStatus = 'signed' | 'sent' | 'included' | 'failed' | 'dropped' | 'replaced';

/** One signed transaction as journalled before it is broadcast. */
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
  /** When it was last recorded or marked (ms). */
  readonly updatedMs: number;
}

/** A transaction as it is journalled: signed, not yet sent. */
export type SignedRecord = Omit<TxRecord, 'status' | 'replacedBy' | 'fee' | 'updatedMs'>;

/** The journal both chains write: a transaction is recorded before it is broadcast and marked as it settles. */
export interface TxJournal {
  recordSigned(tx: SignedRecord): void;
  mark(txHash: string, status: TxStatus, replacedBy?: string | null, fee?: bigint | null): void;
  get(txHash: string): TxRecord | undefined;
}

/** Chain A's journal also answers by nonce: the unsettled transactions of a wallet and those at one nonce. */
export interface NonceJournal extends TxJournal {
  open(chain: 'evm' | 'wasm', source?: string): TxRecord[];
  atSequence(chain: 'evm' | 'wasm', source: string, sequence: bigint): TxRecord[];
}

/** A follower's persisted position. */
export interface CursorStore {
  cursor(chain: 'evm' | 'wasm', wallet: string): unknown;
  setCursor(chain: 'evm' | 'wasm', wallet: string, cursor: unknown): void;
}

/** An approval the adapter granted, with its expiry on chain B. */
export interface ApprovalEntry {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly token: string;
  readonly spender: string;
  readonly amount: bigint;
  readonly expiresAtLedger: number | null;
  readonly txHash: string | null;
}

/** The approvals the adapters record (a chain B approval expires, and the token never reports when). */
export interface ApprovalStore {
  approval(chain: 'evm' | 'wasm', wallet: string, token: string, spender: string): ApprovalEntry | undefined;
  setApproval(entry: ApprovalEntry): void;
}
