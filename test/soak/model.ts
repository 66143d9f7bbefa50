/**
 * The soak's record: plain data gathered from the chains, the venue, the RPC traffic the bot sent and the
 * bot's own state file, from which the pure functions (classify.ts, analysis.ts, report.ts) compute the table.
 * Heights are block numbers (chain A) or ledger sequences (chain B); times are wall-clock epoch milliseconds
 * of this machine (the harness, the sandbox and the bot share one clock).
 */

export type Chain = 'evm' | 'wasm';
export const CHAINS: readonly Chain[] = ['evm', 'wasm'];
export const CHAIN_NAME: Readonly<Record<Chain, string>> = { evm: 'chain A', wasm: 'chain B' };

/** Where a transaction of ours was refused or failed. */
export type Stage =
  /** Refused by a simulation before it was signed (never sent). */
  | 'simulation'
  /** Refused by the node when sent (never entered a block or ledger). */
  | 'submission'
  /** Included, and reverted or failed. */
  | 'inclusion'
  /** Included and applied, and the order book rejected or removed the order (OrderRejected, a cancel by the contract). */
  | 'matching'
  /** Sent, and dropped by the node without inclusion (expired, bad sequence). */
  | 'expiry';

export type Call = 'place' | 'cancel' | 'approve' | 'other';

/** One rejection, revert or refused transaction of ours, with the facts its class is decided from. */
export interface Incident {
  readonly chain: Chain;
  readonly stage: Stage;
  readonly call: Call;
  readonly pairId: string | null;
  /**
   * The reason as the project's error decoder names it (an ErrorCode such as `E_VENUE_ORDER_NOT_FOUND`), or a
   * node's answer where no code applies (`TRY_AGAIN_LATER`, `DROPPED`, `CANCELLED_BY_CONTRACT`).
   */
  readonly code: string;
  /** The revert, contract error or answer as the chain gave it (`OrderBook_OrderNotFound`, `#9 AllowanceError`). */
  readonly name: string;
  readonly txHash: string | null;
  /** The order a cancellation named, or the order a matching rejection concerns. */
  readonly orderId: string | null;
  /** When it left the bot: the send or simulation request as the RPC recorder saw it (or the bot's log line). */
  readonly atMs: number;
  /** Block or ledger that carried it; null when it reached none. */
  readonly height: number | null;
  readonly facts: IncidentFacts;
}

export interface IncidentFacts {
  /**
   * Cancellations: how the order left the book before this cancel, from the chain's own events; null when the
   * order never rested (or the harness saw no removal).
   */
  readonly removal?: Removal | null;
  /** Cancellations: an earlier cancel of ours that reached a block or ledger and named the same order. */
  readonly earlierCancel?: { readonly txHash: string; readonly height: number } | null;
  /** Cancellations: when the bot's state file first recorded the order as gone (filled, cancelled, rejected). */
  readonly botKnewGoneMs?: number | null;
  /** Market closed: the latest halt of the pair at or before the refusal, from the chain's own events. */
  readonly halt?: { readonly height: number; readonly nextPublishedMs: number | null } | null;
  /** TRY_AGAIN_LATER: whether a transaction of the same source account was still pending at that moment. */
  readonly sourceBusy?: boolean;
}

export interface Removal {
  readonly height: number;
  readonly how: 'filled' | 'cancelled by us' | 'cancelled by the contract' | 'cancelled by the venue';
  /** When the block or ledger after the removal's was first seen published; null if none was seen. */
  readonly nextPublishedMs: number | null;
}

export type IncidentClass = 'self-caused' | 'venue race';

export interface Classification {
  readonly class: IncidentClass;
  /** The rule that decided, in words (also the grouping key of the table). */
  readonly rule: string;
}

/** One order of ours as the chain's own events tell it. */
export interface OrderTruth {
  readonly chain: Chain;
  readonly pairId: string;
  readonly orderId: string;
  /** The cross identifier: the bot's client order id. */
  readonly crossId: string;
  readonly side: 'buy' | 'sell';
  /** Raw internal units. */
  readonly quantity: bigint;
  readonly receivedHeight: number;
  restedHeight: number | null;
  filled: bigint;
  readonly fills: { readonly height: number; readonly quantity: bigint }[];
  closedHeight: number | null;
  closedBy: Removal['how'] | 'rejected' | null;
  /** The reason of an `OrderRejected` of this order (0..8). */
  rejectReason: number | null;
  /** What of it traded on arrival, as the incoming order (taker): our quote crossed the book. */
  tradedOnArrival: bigint;
}

/** A transaction of ours that reached a block or ledger. */
export interface ChainTx {
  readonly chain: Chain;
  readonly hash: string;
  readonly height: number;
  /** Position inside the block or ledger. */
  readonly index: number;
  readonly call: Call;
  readonly fn: string;
  readonly pairId: string | null;
  /** Cancellations: the order named. */
  readonly orderId: string | null;
  /** Approvals: the token and the spender approved. */
  readonly approval: { readonly token: string; readonly spender: string } | null;
  readonly success: boolean;
  /** Failures: the decoded reason (ErrorCode) and the chain's name for it. */
  readonly code: string | null;
  readonly name: string | null;
}

/** A movement of a token out of one of our wallets, inside a transaction that called `spender`. */
export interface Draw {
  readonly chain: Chain;
  readonly token: string;
  readonly spender: string;
  readonly height: number;
  readonly index: number;
}

/** A write call the bot sent to a chain node, as the RPC recorder saw it. */
export interface SentCall {
  readonly chain: Chain;
  readonly atMs: number;
  /** `send`: a signed transaction; `simulate`: a chain B simulation of a write call. */
  readonly method: 'send' | 'simulate';
  readonly hash: string | null;
  readonly source: string | null;
  readonly call: Call;
  readonly fn: string;
  readonly pairId: string | null;
  readonly orderId: string | null;
  /** The node's verdict: `ok` (accepted or simulated fine), or the refusal's code and name. */
  readonly ok: boolean;
  readonly code: string | null;
  readonly name: string | null;
  /** Chain A: the transaction's nonce. */
  readonly nonce?: number;
}

/** A gauge read at a quiet moment beside what the chains say. */
export interface GaugeCheck {
  readonly sample: number;
  readonly chain: Chain | null;
  readonly gauge: string;
  /** Which series: the pair and side, the wallet, the token. */
  readonly subject: string;
  readonly value: string;
  readonly truth: string;
  readonly equal: boolean;
}

/** A moment at which the gauges were compared with the truth, or why no consistent reading was had. */
export interface StateSample {
  readonly sample: number;
  readonly atMs: number;
  /** True when the chains and the gauges held still while they were read. */
  readonly reached: boolean;
  readonly note: string;
  /** The venue's open-order list beside the chain's book, per chain (count of our orders). */
  readonly venueList: Readonly<Partial<Record<Chain, { readonly venue: number; readonly chain: number }>>>;
}
