/**
 * The chain adapter of a wallet under test in the backtest: the engine's one interface to a chain, over a
 * simulated chain. A placement or cancellation leaves at once (journalled as signed, as the real adapters do)
 * and is applied in the block or ledger the latency model puts it in; its outcome comes with that block, and
 * the wallet's events of each block reach the follower after the chain's confirmation delay, in block order.
 */
import type {
  Allowance,
  Balances,
  BalancesAt,
  ChainAdapter,
  ChainEvent,
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
} from '../chains/types.ts';
import type { Clock } from '../core/clock.ts';
import { DltError } from '../core/errors.ts';
import { priceToRaw, quantityToRaw } from '../core/units.ts';
import { cancelOrder, submitOrder } from '../sandbox/matching/engine.ts';
import type { TxJournal } from '../store/tx-journal.ts';
import type { SimBlock, SimChain, SimPending, SimTx } from './sim-chain.ts';

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
}

const NATIVE = 10n ** 18n;

export class SimAdapter implements ChainAdapter {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly nativeDecimals: number;
  readonly #o: SimAdapterOptions;
  readonly #waiting = new Map<string, { resolve: (o: Outcome) => void; flight: InFlightTx }>();
  readonly #off: () => void;
  /** Submissions waiting for a free slot, in order. */
  readonly #queue: Array<() => void> = [];
  #sequence = 0n;

  constructor(o: SimAdapterOptions) {
    this.#o = o;
    this.chain = o.chain.chain;
    this.wallet = o.wallet;
    this.nativeDecimals = this.chain === 'evm' ? 18 : 7;
    this.#off = o.chain.onBlock((b) => this.#included(b));
  }

  #included(block: SimBlock): void {
    for (const tx of block.txs) {
      const w = this.#waiting.get(tx.txHash);
      if (w === undefined) continue;
      this.#waiting.delete(tx.txHash);
      this.#o.journal.mark(tx.txHash, tx.ok ? 'included' : 'failed');
      w.resolve(this.#outcomeOf(tx, block.height, block.hash));
      this.#queue.shift()?.();
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
    const s = this.#o.states.get(pair.pairId);
    if (s === undefined) throw new Error(`backtest: no recorded state of pair ${pair.pairId}`);
    return s;
  }

  async readBalances(pair: PairBinding): Promise<Balances> {
    const c = this.#o.chain;
    return {
      base: c.balance(pair.baseToken, this.wallet),
      quote: c.balance(pair.quoteToken, this.wallet),
      native: NATIVE,
    };
  }

  async readBalancesAt(pair: PairBinding, at: bigint | null): Promise<BalancesAt> {
    const c = this.#o.chain;
    const height = at ?? c.height;
    return {
      base: c.balance(pair.baseToken, this.wallet, at),
      quote: c.balance(pair.quoteToken, this.wallet, at),
      native: NATIVE,
      height,
    };
  }

  async readAllowance(): Promise<Allowance> {
    return { amount: 1n << 200n, expiresAtLedger: null };
  }

  async ensureReady(): Promise<void> {}

  async ensureAllowance(): Promise<Submission | null> {
    return null;
  }

  async submit(command: Command): Promise<Submission> {
    if (this.#waiting.size >= this.#o.maxInFlight) await new Promise<void>((resolve) => this.#queue.push(resolve));
    if (command.signal?.aborted === true) {
      const reason = command.signal.reason as unknown;
      const error = reason instanceof DltError ? reason : new DltError('E_ORDER_WITHDRAWN', 'withdrawn');
      return { txHash: null, outcome: Promise.resolve({ kind: 'rejected', txHash: null, error, included: false }) };
    }
    const c = this.#o.chain;
    const txHash = c.nextTxHash();
    this.#o.journal.recordSigned({
      txHash,
      chain: this.chain,
      wallet: this.wallet,
      source: this.wallet,
      sequence: this.#sequence++,
      kind: command.kind,
      clientOrderId: command.kind === 'place' ? command.clientOrderId : null,
      raw: JSON.stringify({ kind: command.kind, pair: command.pair.pairId }),
    });
    const context =
      command.kind === 'place'
        ? { pair: command.pair.pairId, clientOrderId: command.clientOrderId.toString() }
        : { pair: command.pair.pairId, orderId: command.orderId.toString() };
    const outcome = new Promise<Outcome>((resolve) =>
      this.#waiting.set(txHash, { resolve, flight: { txHash, kind: command.kind, context } }),
    );
    this.#o.send({ txHash, pairId: command.pair.pairId, sender: this.wallet, action: this.#action(command) });
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
    const book = this.#o.chain.book(pair.pairId);
    return {
      onBook: (side === 'buy' ? book.buys : book.sells).some((o) => o.id === orderId),
      height: this.#o.chain.height,
    };
  }

  async settle(txHash: string): Promise<Outcome> {
    const done = this.#o.chain.included(txHash);
    if (done !== undefined) return this.#outcomeOf(done.tx, done.height, null);
    if (this.#waiting.has(txHash)) return { kind: 'unknown', txHash, reason: 'pending' };
    return { kind: 'rejected', txHash, error: new DltError('E_CHAIN_TX_EXPIRED', 'never sent'), included: false };
  }

  /** The wallet's events of a block, as a follower filtering by client and by the wallet's transfers reads them. */
  #eventsOf(block: SimBlock, pairs: ReadonlySet<string>): ChainEvent[] {
    return block.txs.flatMap((tx) => {
      if (!pairs.has(tx.pairId)) return [];
      const moved = tx.events.some((e) => e.type === 'Transfer' && (e.from === this.wallet || e.to === this.wallet));
      return tx.events.filter((e) =>
        e.type === 'Transfer'
          ? e.from === this.wallet || e.to === this.wallet
          : e.client === this.wallet || (moved && e.type === 'Trade'),
      );
    });
  }

  #cursor(height: bigint, hash: string | null): EventCursor {
    return this.chain === 'evm'
      ? { chain: 'evm', height, blockHash: hash ?? '0x' }
      : { chain: 'wasm', cursor: height.toString(), height };
  }

  follow(
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (n: FollowerNotice) => Promise<void>,
  ): Follower {
    const ids = new Set(pairs.map((p) => p.pairId));
    let deliveries = Promise.resolve();
    let stopped = false;
    const deliver = (notices: readonly FollowerNotice[]) => {
      deliveries = deliveries
        .then(async () => {
          for (const n of notices) if (!stopped) await onNotice(n);
        })
        .catch(() => undefined);
    };
    const c = this.#o.chain;
    // Like the real followers, one that starts from nothing says where it starts, and that it is not behind.
    if (from === null)
      deliver([
        { kind: 'events', events: [], confirmed: true, cursor: this.#cursor(c.height, null) },
        { kind: 'lag', behind: 0n, covered: c.height },
      ]);
    const off = c.onBlock((block) => {
      const events = this.#eventsOf(block, ids);
      const notices: FollowerNotice[] = [
        { kind: 'events', events, confirmed: true, cursor: this.#cursor(block.height, block.hash) },
        { kind: 'lag', behind: 0n, covered: block.height },
      ];
      this.#o.clock.setTimer(() => deliver(notices), this.#o.confirmMs);
    });
    return {
      poll: () => undefined,
      stop: async () => {
        stopped = true;
        off();
        await deliveries;
      },
    };
  }

  unsettled(): InFlightTx[] {
    return [...this.#waiting.values()].map((w) => w.flight);
  }

  async close(): Promise<void> {
    this.#off();
  }
}
