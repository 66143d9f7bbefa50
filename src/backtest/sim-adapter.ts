/**
 * The chain adapter of a wallet under test in the backtest: the engine's one interface to a chain, over a
 * simulated chain. A placement or cancellation leaves once a slot is free (no more in flight than the live
 * wallet had), journalled as signed as the real adapters do, and is applied in the block or ledger the
 * latency model puts it in; its outcome comes with that block, and the wallet's events of each block reach
 * the follower after the chain's confirmation delay, in block order. On chain B the allowances are the chain
 * adapter's own keeper's (src/chains/wasm/allowances.ts): a placement that needs an approval waits for its
 * inclusion, as it does live; on chain A approvals ride with the orders and cost no time. The follower:
 * sim-follower.ts.
 */
import type {
  Allowance,
  Balances,
  BalancesAt,
  ChainAdapter,
  Command,
  EventCursor,
  Follower,
  FollowerNotice,
  InFlightTx,
  OnChainPairState,
  OrderProbe,
  Outcome,
  PairBinding,
  Submission,
  TokenRole,
} from '../chains/types.ts';
import type { Clock } from '../core/clock.ts';
import { DltError } from '../core/errors.ts';
import { priceToRaw, quantityToRaw } from '../core/units.ts';
import { cancelOrder, submitOrder } from '../sandbox/matching/engine.ts';
import type { TxJournal } from '../store/tx-journal.ts';
import type { StateStore } from '../store/state-store.ts';
import type { Logger } from '../telemetry/logger.ts';
import { AllowanceKeeper } from '../chains/wasm/allowances.ts';
import type { ApprovalOptions } from '../chains/wasm/options.ts';
import type { SimBlock, SimChain, SimPending, SimTx } from './sim-chain.ts';
import { simFollower } from './sim-follower.ts';

export interface SimAdapterOptions {
  readonly chain: SimChain;
  readonly wallet: string;
  readonly states: ReadonlyMap<string, OnChainPairState>;
  readonly clock: Clock;
  readonly journal: TxJournal;
  /** Hands a transaction to the chain; it is applied in a later block. */
  readonly send: (p: SimPending) => void;
  /** From a block to its events reaching the follower (the confirmation depth in time). */
  readonly confirmMs: number;
  /** Transactions in flight at once; a further one leaves when one is decided (as live, with its sources busy). */
  readonly maxInFlight: number;
  /** From sending a transaction to its outcome reaching the bot (drawn per transaction; never before its block). */
  readonly outcomeDelay: () => number;
  /** Chain B: how the adapter sizes and renews approvals, and where it records them. */
  readonly approvals?: { readonly options: ApprovalOptions; readonly state: StateStore; readonly logger: Logger };
}

const NATIVE = 10n ** 18n;

/** A command refused before it was signed: nothing was sent. */
const refused = (error: DltError): Submission => ({
  txHash: null,
  outcome: Promise.resolve({ kind: 'rejected', txHash: null, error, included: false }),
});

export class SimAdapter implements ChainAdapter {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly nativeDecimals: number;
  readonly #options: SimAdapterOptions;
  /** Sent, outcome not yet handed back: when it is due (sending time plus the drawn delay). */
  readonly #waiting = new Map<string, { resolve: (o: Outcome) => void; flight: InFlightTx; dueMs: number }>();
  readonly #off: () => void;
  /** Submissions waiting for a free slot, in order. */
  readonly #queue: Array<() => void> = [];
  readonly #keeper: AllowanceKeeper | null;
  #sequence = 0n;

  constructor(o: SimAdapterOptions) {
    this.#options = o;
    this.chain = o.chain.chain;
    this.wallet = o.wallet;
    this.nativeDecimals = this.chain === 'evm' ? 18 : 7;
    this.#off = o.chain.onBlock((b) => this.#included(b));
    const a = o.approvals;
    const c = o.chain;
    this.#keeper =
      a === undefined || c.chain !== 'wasm'
        ? null
        : new AllowanceKeeper({
            reader: { allowance: async (token, spender) => c.allowance(token, o.wallet, spender) },
            state: a.state,
            wallet: o.wallet,
            options: a.options,
            logger: a.logger,
            latestLedger: async () => Number(c.height),
            approve: (pair, role, amount) => this.#approve(pair, role, amount),
          });
  }

  /** An approval of the order book on one of the pair's tokens, sent like any transaction. */
  async #approve(pair: PairBinding, role: TokenRole, amount: bigint): Promise<Submission> {
    const token = role === 'base' ? pair.baseToken : pair.quoteToken;
    const action = this.#options.chain.approval(token, this.wallet, pair.orderBook, amount);
    return this.#send('approve', pair, null, { pair: pair.pairId, tokenRole: role }, action);
  }

  #included(block: SimBlock): void {
    for (const tx of block.txs) {
      const w = this.#waiting.get(tx.txHash);
      if (w === undefined) continue;
      const outcome = this.#outcomeOf(tx, block.height, block.hash);
      const now = this.#options.clock.now();
      this.#options.clock.setTimer(
        () => {
          this.#waiting.delete(tx.txHash);
          this.#options.journal.mark(tx.txHash, tx.ok ? 'included' : 'failed');
          w.resolve(outcome);
          this.#queue.shift()?.();
        },
        Math.max(0, w.dueMs - now),
      );
    }
  }

  #outcomeOf(tx: SimTx, height: bigint, hash: string | null): Outcome {
    const block = hash === null ? {} : { block: { height, hash } };
    if (!tx.ok) return { kind: 'rejected', txHash: tx.txHash, error: tx.error as DltError, included: true, ...block };
    return {
      kind: 'accepted',
      txHash: tx.txHash,
      height,
      orderId: tx.orderId,
      events: tx.events.filter((e) => e.type !== 'Transfer'),
      ...block,
    };
  }

  async readPairState(pair: PairBinding): Promise<OnChainPairState> {
    const s = this.#options.states.get(pair.pairId);
    if (s === undefined) throw new Error(`backtest: no recorded state of pair ${pair.pairId}`);
    return s;
  }

  async readBalances(pair: PairBinding): Promise<Balances> {
    const c = this.#options.chain;
    return {
      base: c.balance(pair.baseToken, this.wallet),
      quote: c.balance(pair.quoteToken, this.wallet),
      native: NATIVE,
    };
  }

  async readBalancesAt(pair: PairBinding, at: bigint | null): Promise<BalancesAt> {
    const c = this.#options.chain;
    const height = at ?? c.height;
    return {
      base: c.balance(pair.baseToken, this.wallet, at),
      quote: c.balance(pair.quoteToken, this.wallet, at),
      native: NATIVE,
      height,
    };
  }

  async readAllowance(pair: PairBinding, token: TokenRole): Promise<Allowance> {
    const address = token === 'base' ? pair.baseToken : pair.quoteToken;
    return {
      amount: this.#options.chain.allowance(address, this.wallet, pair.orderBook),
      expiresAtLedger: this.#keeper?.recordedExpiry(pair, token) ?? null,
    };
  }

  async ensureReady(): Promise<void> {}

  async ensureAllowance(pair: PairBinding, token: TokenRole, amount: bigint): Promise<Submission | null> {
    return this.#keeper === null ? null : this.#keeper.ensure(pair, token, amount);
  }

  async submit(command: Command): Promise<Submission> {
    const withdrawn = () => {
      const reason = command.signal?.reason as unknown;
      return refused(reason instanceof DltError ? reason : new DltError('E_ORDER_WITHDRAWN', 'withdrawn'));
    };
    const aborted = () => command.signal?.aborted === true;
    if (aborted()) return withdrawn();
    const keeper = command.kind === 'place' ? this.#keeper : null;
    const prefunded = this.#options.states.get(command.pair.pairId)?.prefunded ?? true;
    if (keeper !== null && command.kind === 'place') {
      const blocked = await keeper.prepare(command.pair, command.approval, prefunded, command.committed ?? 0n);
      if (blocked !== null) return refused(blocked);
      // Withdrawn while it waited for the approval: never signed, as live.
      if (aborted()) return withdrawn();
    }
    const context =
      command.kind === 'place'
        ? { pair: command.pair.pairId, clientOrderId: command.clientOrderId.toString() }
        : { pair: command.pair.pairId, orderId: command.orderId.toString() };
    const cid = command.kind === 'place' ? command.clientOrderId : null;
    const submission = await this.#send(command.kind, command.pair, cid, context, this.#action(command));
    if (keeper !== null && command.kind === 'place') {
      const r = keeper.reserve(command.pair, command.approval.token, command.approval.amount, prefunded);
      if (r !== null) void submission.outcome.then((o) => keeper.settle(r, o));
    }
    return submission;
  }

  /** Waits for a free slot, journals the transaction as signed and hands it to the chain. */
  async #send(
    kind: 'place' | 'cancel' | 'approve',
    pair: PairBinding,
    clientOrderId: bigint | null,
    context: Readonly<Record<string, unknown>>,
    action: SimPending['action'],
  ): Promise<Submission> {
    if (this.#waiting.size >= this.#options.maxInFlight)
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    const txHash = this.#options.chain.nextTxHash();
    this.#options.journal.recordSigned({
      txHash,
      chain: this.chain,
      wallet: this.wallet,
      source: this.wallet,
      sequence: this.#sequence++,
      kind,
      clientOrderId,
      raw: JSON.stringify({ kind, pair: pair.pairId }),
    });
    const outcome = new Promise<Outcome>((resolve) =>
      this.#waiting.set(txHash, {
        resolve,
        flight: { txHash, kind, context },
        dueMs: this.#options.clock.now() + this.#options.outcomeDelay(),
      }),
    );
    this.#options.send({ txHash, pairId: pair.pairId, sender: this.wallet, action });
    return { txHash, outcome };
  }

  #action(command: Command): SimPending['action'] {
    const wallet = this.wallet;
    if (command.kind === 'cancel')
      return (book, ctx) => ({
        events: cancelOrder(book, ctx, wallet, command.side, command.orderId, 'ByParticipant'),
        orderId: null,
      });
    const s = command.pair.rules.scales;
    const t = command.terms;
    return (book, ctx) => {
      const r = submitOrder(book, ctx, wallet, t.side, () => ({
        quantity: quantityToRaw(t.quantity, s),
        price: priceToRaw(t.price, s),
        crossId: command.clientOrderId,
        type: t.type,
        condition: t.condition,
        validity: t.validity,
        lifetimeDays: t.lifetimeDays,
        reportingData: new Uint8Array([0]),
      }));
      return { events: r.events, orderId: r.orderId };
    };
  }

  async probeOrder(pair: PairBinding, side: 'buy' | 'sell', orderId: bigint): Promise<OrderProbe> {
    const book = this.#options.chain.book(pair.pairId);
    return {
      onBook: (side === 'buy' ? book.buys : book.sells).some((o) => o.id === orderId),
      height: this.#options.chain.height,
    };
  }

  async settle(txHash: string): Promise<Outcome> {
    const done = this.#options.chain.included(txHash);
    if (done !== undefined) return this.#outcomeOf(done.tx, done.height, null);
    if (this.#waiting.has(txHash)) return { kind: 'unknown', txHash, reason: 'pending' };
    return { kind: 'rejected', txHash, error: new DltError('E_CHAIN_TX_EXPIRED', 'never sent'), included: false };
  }

  follow(
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (n: FollowerNotice) => Promise<void>,
  ): Follower {
    const o = this.#options;
    return simFollower(
      { chain: o.chain, wallet: this.wallet, clock: o.clock, confirmMs: o.confirmMs },
      pairs,
      from,
      onNotice,
    );
  }

  unsettled(): InFlightTx[] {
    return [...this.#waiting.values()].map((w) => w.flight);
  }

  async close(): Promise<void> {
    this.#off();
  }
}
