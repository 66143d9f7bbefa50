/**
 * One chain of the backtest: the order books of its recorded pairs, run by the venue's matching engine (the
 * sandbox's: price-time priority, single-price execution, maximum matches, collars, commissions, pre-funded
 * locks), and the blocks or ledgers in which transactions are applied, in order. Recorded transactions of
 * other clients are applied again as they were sent (their orders' full terms, their cancellations);
 * transactions of the wallets under test come from the bot. Balances are kept exactly for the wallets under
 * test; every other client is assumed to hold enough (its recorded transactions succeeded on the venue).
 * How others' recorded transactions are applied again: others-replay.ts.
 */
import type { ChainEvent, OnChainPairState, PairBinding } from '../chains/types.ts';
import { DltError } from '../core/errors.ts';
import type { Side } from '../core/order-terms.ts';
import { levels } from '../sandbox/matching/book.ts';
import { cloneBook, createBook } from '../sandbox/matching/engine.ts';
import { bookParamsOf } from '../sandbox/matching/params.ts';
import type { Book, BookContext, BookEvent, Ledger, Token } from '../sandbox/matching/types.ts';
import { toChainEvents, type Move } from './chain-events.ts';
import { OthersReplay, type RecordedEvent, type ReplayCounts } from './others-replay.ts';

export type { RecordedEvent, ReplayCounts } from './others-replay.ts';
export { recordedEvent } from './others-replay.ts';

/** What every client other than the wallets under test is taken to hold. */
const PLENTY = 10n ** 40n;

export interface SimTx {
  readonly txHash: string;
  readonly pairId: string;
  readonly sender: string;
  readonly ok: boolean;
  readonly error: DltError | null;
  readonly orderId: bigint | null;
  /** Every event of the transaction in log order, transfers included. */
  readonly events: readonly ChainEvent[];
}

export interface SimBlock {
  readonly height: bigint;
  readonly hash: string | null;
  readonly timeMs: number;
  readonly txs: readonly SimTx[];
}

export type SimAction = (book: Book, ctx: BookContext) => { events: BookEvent[]; orderId: bigint | null };

/** A transaction waiting for its block. */
export interface SimPending {
  readonly txHash: string;
  readonly pairId: string;
  readonly sender: string;
  readonly action: SimAction;
}

export interface SimPair {
  readonly binding: PairBinding;
  readonly state: OnChainPairState;
}

export class SimChain {
  readonly chain: 'evm' | 'wasm';
  readonly #others: OthersReplay;
  readonly #pairs = new Map<string, { binding: PairBinding; book: Book }>();
  /** Balances of the wallets under test: `${token}:${account}`. */
  #balances = new Map<string, bigint>();
  /**
   * Allowances the wallets under test gave (`${token}:${owner}:${spender}`), kept on chain B, where the bot's
   * approvals are transactions a placement may wait for; on chain A they are pipelined with the orders, and
   * every allowance counts as enough.
   */
  #allowances = new Map<string, bigint>();
  readonly #tested: ReadonlySet<string>;
  readonly #marketMakers: ReadonlySet<string>;
  readonly #listeners = new Set<(block: SimBlock) => void>();
  /** Our transactions by hash, with their block. */
  readonly #ours = new Map<string, { tx: SimTx; height: bigint }>();
  /** Balances as each recent block left them (reads of an earlier block). */
  readonly #history = new Map<bigint, Map<string, bigint>>();
  #height: bigint;
  #timeMs: number;
  #counter = 0;

  constructor(
    chain: 'evm' | 'wasm',
    pairs: readonly SimPair[],
    tested: { readonly wallets: ReadonlySet<string>; readonly marketMakers: ReadonlySet<string> },
    start: { readonly height: bigint; readonly timeMs: number },
  ) {
    this.chain = chain;
    this.#tested = tested.wallets;
    this.#others = new OthersReplay(tested.wallets);
    this.#marketMakers = tested.marketMakers;
    for (const p of pairs) {
      const params = bookParamsOf(p.binding.rules, {
        self: p.binding.orderBook,
        commissionWallet: `commission:${p.binding.orderBook}`,
        prefunded: p.state.prefunded,
      });
      const book = createBook({
        ...params,
        makerBps: p.state.makerBps,
        takerBps: p.state.takerBps,
        marketMakerBps: p.state.marketMakerBps,
      });
      this.#pairs.set(p.binding.pairId, { binding: p.binding, book });
    }
    this.#height = start.height;
    this.#timeMs = start.timeMs;
  }

  /** What happened to the recorded transactions of others. */
  get counts(): ReplayCounts {
    return this.#others.counts;
  }

  get height(): bigint {
    return this.#height;
  }

  get timeMs(): number {
    return this.#timeMs;
  }

  #pair(pairId: string) {
    const p = this.#pairs.get(pairId);
    if (p === undefined) throw new Error(`backtest: no pair ${pairId} on chain ${this.chain}`);
    return p;
  }

  book(pairId: string): Book {
    return this.#pair(pairId).book;
  }

  /** Price levels of a pair's book, best first (raw), as the venue's market data shows them. */
  levels(pairId: string, depth: number) {
    const b = this.book(pairId);
    return { buy: levels(b.buys, depth), sell: levels(b.sells, depth) };
  }

  /** The book as the first recorded book message showed it: one resting order per level (raw units). */
  seed(pairId: string, side: Side, levels: ReadonlyArray<{ readonly price: bigint; readonly quantity: bigint }>): void {
    this.#others.seed(this.book(pairId), side, levels);
  }

  balance(token: string, account: string, at: bigint | null = null): bigint {
    if (!this.#tested.has(account)) return PLENTY;
    const from = at === null ? this.#balances : (this.#history.get(at) ?? this.#balances);
    return from.get(`${token}:${account}`) ?? 0n;
  }

  /** What `owner` allowed `spender` to take of `token`. */
  allowance(token: string, owner: string, spender: string): bigint {
    if (this.chain !== 'wasm' || !this.#tested.has(owner)) return PLENTY;
    return this.#allowances.get(`${token}:${owner}:${spender}`) ?? 0n;
  }

  /** A transaction setting what `owner` allows `spender` to take of `token` (a token's `approve`). */
  approval(token: string, owner: string, spender: string, amount: bigint): SimAction {
    return () => {
      this.#allowances.set(`${token}:${owner}:${spender}`, amount);
      return { events: [], orderId: null };
    };
  }

  /** Sets a tested wallet's balance of a token (the recorded start). */
  fund(token: string, account: string, amount: bigint): void {
    this.#balances.set(`${token}:${account}`, amount);
  }

  onBlock(listener: (block: SimBlock) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  nextTxHash(): string {
    this.#counter++;
    const n = this.#counter.toString(16);
    const hash = `ba${n.padStart(62, '0')}`;
    return this.chain === 'evm' ? `0x${hash}` : hash;
  }

  /** Our transaction, once included. */
  included(txHash: string): { tx: SimTx; height: bigint } | undefined {
    return this.#ours.get(txHash);
  }

  /**
   * Applies one block or ledger: ours first (in the order sent), then the recorded transactions of others (in
   * their recorded order), each all-or-nothing, and tells the listeners. Ours first, because the bot sends
   * right after the block it reacts to, others later in the interval: in a 30-minute sandbox session, the live
   * bot's orders came before the others' in 109 of the 118 blocks that held both.
   */
  mine(
    height: bigint,
    timeMs: number,
    recorded: ReadonlyArray<{
      readonly txHash: string;
      readonly pairId: string;
      readonly events: readonly RecordedEvent[];
    }>,
    ours: readonly SimPending[],
  ): SimBlock {
    this.#height = height > this.#height ? height : this.#height + 1n;
    this.#timeMs = Math.max(this.#timeMs, timeMs);
    const txs: SimTx[] = [];
    for (const p of ours) {
      const tx = this.#execute(p);
      txs.push(tx);
      this.#ours.set(p.txHash, { tx, height: this.#height });
    }
    for (const r of recorded) {
      const action = this.#others.replayOf(r.pairId, this.#pair(r.pairId).binding.baseToken, r.events);
      if (action !== null) txs.push(this.#execute({ txHash: r.txHash, pairId: r.pairId, sender: '', action }));
    }
    const hash = this.chain === 'evm' ? `0x${this.#height.toString(16).padStart(64, 'c')}` : null;
    const block: SimBlock = { height: this.#height, hash, timeMs: this.#timeMs, txs };
    this.#history.set(this.#height, new Map(this.#balances));
    this.#history.delete(this.#height - 64n);
    for (const l of this.#listeners) l(block);
    return block;
  }

  #execute(p: SimPending): SimTx {
    const pair = this.#pair(p.pairId);
    const saved = {
      book: cloneBook(pair.book),
      balances: new Map(this.#balances),
      allowances: new Map(this.#allowances),
    };
    const moves: Move[] = [];
    const b = pair.binding;
    const tokenOf = (t: Token) => (t === 'base' ? b.baseToken : b.quoteToken);
    const ledger: Ledger = {
      balance: (t, a) => this.balance(tokenOf(t), a),
      allowance: (t, owner, spender) => this.allowance(tokenOf(t), owner, spender),
      transfer: (t, from, to, amount) => {
        const token = tokenOf(t);
        const have = this.balance(token, from);
        if (have < amount)
          throw new DltError('E_VENUE_INSUFFICIENT_BALANCE', `${from} has ${have} ${t}, needs ${amount}`);
        if (this.#tested.has(from)) this.#balances.set(`${token}:${from}`, have - amount);
        if (this.#tested.has(to)) this.#balances.set(`${token}:${to}`, this.balance(token, to) + amount);
        moves.push({ token: t, from, to, amount });
      },
      transferFrom: (t, spender, from, to, amount) => {
        const allowed = this.allowance(tokenOf(t), from, spender);
        if (allowed < amount)
          throw new DltError(
            'E_VENUE_INSUFFICIENT_ALLOWANCE',
            `${from} allowed ${spender} ${allowed} ${t}, needs ${amount}`,
          );
        if (this.chain === 'wasm' && this.#tested.has(from))
          this.#allowances.set(`${tokenOf(t)}:${from}:${spender}`, allowed - amount);
        ledger.transfer(t, from, to, amount);
      },
    };
    const ctx: BookContext = {
      ledger,
      nowSeconds: BigInt(Math.floor(this.#timeMs / 1000)),
      client: (account) =>
        account === ''
          ? undefined
          : { canBuy: true, canSell: true, canCancel: true, isMarketMaker: this.#marketMakers.has(account) },
    };
    const meta = (i: number) => ({
      key: `${p.txHash}:${i}`,
      pairId: b.pairId,
      txHash: p.txHash,
      height: this.#height,
      blockHash: this.chain === 'evm' ? `0x${this.#height.toString(16).padStart(64, 'c')}` : null,
      timeMs: this.#timeMs,
    });
    try {
      const { events, orderId } = p.action(pair.book, ctx);
      const chainEvents = toChainEvents(events, moves, b, tokenOf).map((e, i) => ({ ...meta(i), ...e }) as ChainEvent);
      return {
        txHash: p.txHash,
        pairId: p.pairId,
        sender: p.sender,
        ok: true,
        error: null,
        orderId,
        events: chainEvents,
      };
    } catch (e) {
      pair.book = saved.book;
      this.#balances = saved.balances;
      this.#allowances = saved.allowances;
      const error = e instanceof DltError ? e : new DltError('E_VENUE_CONTRACT_ERROR', String(e));
      return { txHash: p.txHash, pairId: p.pairId, sender: p.sender, ok: false, error, orderId: null, events: [] };
    }
  }
}
