/**
 * The one interface the engine uses to act on either chain. Commands go down (place, cancel, approve), events
 * come back up (decoded order book and token events with a durable cursor). Nothing here knows which chain it
 * is on; `src/chains/evm/` and `src/chains/wasm/` implement it.
 *
 * Outcomes are explicit: a submission is accepted (included and succeeded), rejected (refused before signing,
 * refused by the node, or included and reverted/failed, with the venue's reason), or unknown (sent, fate not
 * known yet). An unknown outcome is settled later by the chain (`settle`, the event follower, or
 * reconciliation), never guessed. A chain A outcome read from a receipt names the receipt's block: a
 * reorganisation can replace that block, so such an outcome is provisional until the event follower confirms
 * the same transaction in the same block (chain B ledgers are final and name none).
 */
import type { Balances, BalancesAt, WalletBalances } from './balances.ts';
import type { DltError } from '../core/errors.ts';
import type { ReportingData } from '../core/encoding/reporting.ts';
import type { ApprovalNeed } from '../core/money.ts';
import type { OrderTerms, Side } from '../core/order-terms.ts';
import type { ChainKind } from '../core/pair.ts';
import type { PairRules } from '../core/rules.ts';
import type { PairScales } from '../core/units.ts';

export type TokenRole = 'base' | 'quote';

/** Everything an adapter needs to trade one pair, resolved from REST before trading. */
export interface PairBinding {
  readonly pairId: string;
  /** Market symbol (WebSocket channel), for logs. */
  readonly symbol: string;
  readonly chain: ChainKind;
  /** Chain-native address forms: chain A `0x...`; chain B contract strkeys `C...`. */
  readonly orderBook: string;
  readonly baseToken: string;
  readonly quoteToken: string;
  readonly rules: PairRules;
}

/** What the order book contract itself reports (the simulation and `getConfig` are authoritative). */
export interface OnChainPairState {
  /** Raw phase: uint8 on chain A, string on chain B. */
  readonly phase: number | string;
  /** Phase gate of the core: exactly 1 / "OpenForTrading". */
  readonly open: boolean;
  readonly scales: PairScales;
  readonly makerBps: number;
  readonly takerBps: number;
  readonly marketMakerBps: number;
  /** False when the deployment matches without locking (chain B `no_prefund_config`). */
  readonly prefunded: boolean;
}

export type { Balances, BalancesAt, WalletBalances } from './balances.ts';

export interface Allowance {
  readonly amount: bigint;
  /** Chain B: the ledger after which the allowance is zero, as the adapter recorded it; chain A: null. */
  readonly expiresAtLedger: number | null;
}

export interface PlaceCommand {
  readonly kind: 'place';
  readonly pair: PairBinding;
  /** Our client order id, carried on chain as the cross identifier (uint32). */
  readonly clientOrderId: bigint;
  readonly terms: OrderTerms;
  readonly reporting: ReportingData;
  /** What must be approved for this order (core `approvalFor`); the adapter tops up its budget ahead of it. */
  readonly approval: ApprovalNeed;
  /**
   * On a book that matches without pre-funding: what the wallet's other live orders on this book may still
   * draw on the same token (native units). Matching draws them together, so the allowance must cover them
   * and this order at once. Ignored on pre-funded books (their orders took their tokens at placement).
   */
  readonly committed?: bigint;
  /**
   * Aborted when the placement is withdrawn (kill switch, stale market data, shutdown, a newer decision): an
   * adapter that has not signed it yet refuses it with `E_ORDER_WITHDRAWN` instead of sending it. */
  readonly signal?: AbortSignal;
}

export interface CancelCommand {
  readonly kind: 'cancel';
  readonly pair: PairBinding;
  readonly side: Side;
  readonly orderId: bigint;
  /**
   * Aborted when the cancel became moot before it was signed (the engine saw the order filled or cancelled
   * meanwhile): an adapter refuses it unsigned with the signal's reason instead of simulating or sending it.
   */
  readonly signal?: AbortSignal;
}

export type Command = PlaceCommand | CancelCommand;

/** The block whose receipt decided an outcome (chain A only). */
export interface Inclusion {
  readonly height: bigint;
  readonly hash: string;
}

export type Outcome =
  | {
      readonly kind: 'accepted';
      readonly txHash: string;
      /** Block number (chain A) or ledger sequence (chain B) that included it. */
      readonly height: bigint;
      /** The venue's order id, for a placement. */
      readonly orderId: bigint | null;
      /** The order book events of this transaction, decoded, in log order. */
      readonly events: readonly ChainEvent[];
      /** Chain A: the receipt's block (the outcome is provisional until the follower confirms it). */
      readonly block?: Inclusion;
    }
  | {
      readonly kind: 'rejected';
      readonly txHash: string | null;
      readonly error: DltError;
      /** True when the transaction was included (reverted / failed on chain): its nonce or sequence is used. */
      readonly included: boolean;
      /** Chain A: the block of the receipt that decided it (the revert, or the self-transfer that took the nonce). */
      readonly block?: Inclusion;
    }
  | { readonly kind: 'unknown'; readonly txHash: string | null; readonly reason: string };

export interface Submission {
  /** Known once signed; null when the command was refused before signing. */
  readonly txHash: string | null;
  /** Settles when the chain has decided, or with `unknown` at the adapter's deadline. */
  readonly outcome: Promise<Outcome>;
}

/** Where an event came from; `key` is unique per chain (chain A `txHash:logIndex`, chain B the event id). */
export interface EventMeta {
  readonly key: string;
  readonly pairId: string;
  readonly txHash: string;
  readonly height: bigint;
  /** Chain A block hash, for reorganisation checks; chain B ledger hash or null. */
  readonly blockHash: string | null;
  /** Chain time of the block or ledger, ms since epoch. */
  readonly timeMs: number;
}

export type ChainEvent = EventMeta &
  (
    | {
        readonly type: 'OrderReceived';
        readonly orderId: bigint;
        readonly client: string;
        readonly quantity: bigint;
        readonly price: bigint;
        readonly side: Side;
        /** 0 when the client sent none: chain A records an empty cross identifier as 0, like the default. */
        readonly crossIdentifier: bigint;
        readonly orderType: number;
        readonly executionCondition: number;
      }
    | {
        /** `NewBuyOrder` / `NewSellOrder`: the remainder of an incoming order rests. */
        readonly type: 'OrderResting';
        readonly orderId: bigint;
        readonly client: string;
        readonly side: Side;
        readonly quantity: bigint;
        readonly price: bigint;
      }
    | {
        /** `NewBuyInitiatedTrade` / `NewSellInitiatedTrade`: describes the incoming order only. */
        readonly type: 'Trade';
        readonly orderId: bigint;
        readonly client: string;
        readonly side: Side;
        readonly quantity: bigint;
        readonly price: bigint;
      }
    | {
        readonly type: 'OrderRejected';
        readonly orderId: bigint;
        readonly client: string;
        readonly reason: number;
        readonly quantityNotExecuted: bigint;
        readonly side: Side | null;
        readonly price: bigint;
      }
    | {
        readonly type: 'OrderCancelled';
        readonly orderId: bigint;
        readonly client: string;
        readonly quantity: bigint;
        readonly price: bigint;
        readonly cancellationType: 'ByParticipant' | 'ByAdmin' | 'ByContract';
        readonly token: string;
        readonly toAddress: string;
      }
    | {
        /** A token movement to or from the wallet (native units); resting orders learn of fills this way. */
        readonly type: 'Transfer';
        readonly token: TokenRole;
        readonly from: string;
        readonly to: string;
        readonly amount: bigint;
      }
  );

/** A durable position in a chain's event stream, stored by the engine and handed back on restart. */
export type EventCursor =
  | { readonly chain: 'evm'; readonly height: bigint; readonly blockHash: string }
  | { readonly chain: 'wasm'; readonly cursor: string; readonly height: bigint };

export type FollowerNotice =
  /** Events in chain order. `confirmed` events are final; tentative ones may later be withdrawn. */
  | {
      readonly kind: 'events';
      readonly events: readonly ChainEvent[];
      readonly confirmed: boolean;
      readonly cursor: EventCursor;
    }
  /** Tentative events withdrawn by a reorganisation; confirmed replacements follow as `events`. */
  | { readonly kind: 'rollback'; readonly keys: readonly string[] }
  /** The stored cursor is older than the node retains (chain B retention window): reconcile in full. */
  | { readonly kind: 'gap'; readonly from: EventCursor | null; readonly oldestAvailable: bigint }
  /**
   * How far behind the chain head the follower is, and `covered`: every event at or below that height has been
   * delivered as confirmed (what a balance read at that height can be compared with).
   */
  | { readonly kind: 'lag'; readonly behind: bigint; readonly covered?: bigint };

export interface Follower {
  /** Starts the next round now instead of after the poll interval (someone waits for the chain's latest events). */
  poll(): void;
  stop(): Promise<void>;
}

/** Whether an order is still on the book, as the chain answers a simulated cancellation (nothing is signed). */
export interface OrderProbe {
  /** Null: the chain did not say (another refusal, or the node could not be asked); `reason` says why. */
  readonly onBook: boolean | null;
  /** The block or ledger the answer is of. */
  readonly height: bigint;
  readonly reason?: string;
}

/** A transaction an adapter sent whose fate the chain has not decided yet. */
export interface InFlightTx {
  readonly txHash: string;
  readonly kind: string;
  /** Pair, side, price, quantity, ids: what the logs say about the command. */
  readonly context: Readonly<Record<string, unknown>>;
}

export interface ChainAdapter {
  readonly chain: ChainKind;
  /** The trading wallet (chain A address, chain B `G...` account that authorizes as `user`). */
  readonly wallet: string;
  /** Decimals of the chain's native token, in which `Balances.native` and fees are counted (wei, stroops). */
  readonly nativeDecimals: number;

  readPairState(pair: PairBinding): Promise<OnChainPairState>;
  readBalances(pair: PairBinding): Promise<Balances>;
  /**
   * The pair's balances read together as of one block or ledger. `at`: an earlier block whose state the chain
   * still keeps (chain A reads it there); a chain that reads only its latest state (chain B) reads that and
   * says which ledger it was. Null: the latest.
   */
  readBalancesAt(pair: PairBinding, at: bigint | null): Promise<BalancesAt>;
  /** The wallet's balances of these tokens and its native balance together (one request where the chain allows). */
  readWalletBalances?(tokens: readonly string[]): Promise<WalletBalances>;
  readAllowance(pair: PairBinding, token: TokenRole): Promise<Allowance>;
  /** Wallet prerequisites (chain B trustlines and authorization; chain A registry flags): a clear error if missing. */
  ensureReady(pair: PairBinding): Promise<void>;
  /** Raises the allowance so that at least `amount` more can be taken; pipelined ahead of the orders needing it. */
  ensureAllowance(pair: PairBinding, token: TokenRole, amount: bigint): Promise<Submission | null>;
  /** Signs and sends; resolves once the transaction has left the process (or was refused before signing). */
  submit(command: Command): Promise<Submission>;
  /** Placements taken at once (chain B: one per source account); absent: one at a time, in order (chain A nonces). */
  readonly placementLanes?: number;
  /** Whether our order rests on the book now: a cancellation simulated (never signed or sent). */
  probeOrder(pair: PairBinding, side: Side, orderId: bigint): Promise<OrderProbe>;
  /** The fate of an earlier transaction, for outcomes left unknown (after a restart, too). */
  settle(txHash: string, pair: PairBinding): Promise<Outcome>;
  /** Cross identifiers of the wallet's orders the chain shows: a fresh state file starts above ours among them. */
  crossIdentifiersSeen?(pairs: readonly PairBinding[]): Promise<bigint[]>;
  /** Follows the order book and token events of the wallet from a cursor (null: from now). */
  follow(
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (notice: FollowerNotice) => Promise<void>,
  ): Follower;
  /** Transactions sent whose outcome is still open: a shutdown waits for them before `close()`. */
  unsettled(): readonly InFlightTx[];
  /** Stops following and polling; an outcome still open at this point settles as `unknown` (`settle` finds it later). */
  close(): Promise<void>;
}
