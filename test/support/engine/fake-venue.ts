/**
 * An in-memory venue for engine tests: order books run by the shared sandbox matching engine (so matching,
 * single-price execution, commissions, rounding and pre-funded locks are the venue's own), tokens shared
 * across books as on the venue, and a chain of blocks whose transactions carry the decoded events of every
 * client with the token transfers, exactly what a chain adapter would decode. `reorg` replaces the blocks
 * above a height: the state goes back to that height, and the transactions named are mined again (in that
 * order) in blocks of other hashes; the others are gone.
 */
import { DltError } from '../../../src/core/errors.ts';
import type { Side } from '../../../src/core/order-terms.ts';
import { toChainEvents } from '../../../src/backtest/chain-events.ts';
import { derivePairRules } from '../../../src/core/rules.ts';
import type { TradingPair } from '../../../src/core/pair.ts';
import type { ChainEvent, PairBinding } from '../../../src/chains/types.ts';
import { bookSettingsFromPair } from '../../../src/sandbox/evm/pair-params.ts';
import { cancelOrder, clearOrders, cloneBook, createBook, submitOrder } from '../../../src/sandbox/matching/engine.ts';
import type {
  Book,
  BookContext,
  BookEvent,
  IncomingOrder,
  Ledger,
  Token,
} from '../../../src/sandbox/matching/types.ts';

export const COMMISSION = 'commission';
export const OPERATOR = 'operator';

export interface VenuePair {
  readonly binding: PairBinding;
  book: Book;
}

export interface TxRecord {
  readonly txHash: string;
  readonly sender: string;
  readonly ok: boolean;
  readonly error: DltError | null;
  readonly orderId: bigint | null;
  /** Every event of the transaction in log order, for every client, transfers included. */
  readonly events: ChainEvent[];
}

export interface Block {
  readonly height: bigint;
  readonly hash: string;
  readonly timeMs: number;
  readonly txs: readonly TxRecord[];
}

type Action = (ctx: { pair: VenuePair; ledger: Ledger; book: Book }) => { events: BookEvent[]; orderId: bigint | null };

interface Pending {
  readonly txHash: string;
  readonly sender: string;
  readonly pairId: string;
  readonly action: Action;
}

export interface PairSetup {
  readonly pair: TradingPair;
  readonly prefunded?: boolean;
}

export class FakeVenue {
  readonly chain: 'evm' | 'wasm';
  readonly pairs = new Map<string, VenuePair>();
  readonly balances = new Map<string, bigint>();
  readonly marketMakers = new Set<string>();
  readonly blocks: Block[] = [];
  /** Transactions the chain never saw, with the height at which their absence was first noticed. */
  readonly missing = new Map<string, bigint>();
  #mempool: Pending[] = [];
  #txCounter = 0;
  /** Replaced chains so far: part of every block hash. */
  #fork = 0;
  /** The state before each block (index = height - 1), to go back to. */
  readonly #before: Array<{ books: Map<string, Book>; balances: Map<string, bigint> }> = [];
  readonly #sent = new Map<string, Pending>();
  readonly #listeners = new Set<(block: Block) => void>();

  constructor(chain: 'evm' | 'wasm', setups: readonly PairSetup[]) {
    this.chain = chain;
    setups.forEach((s, i) => {
      const rules = derivePairRules(s.pair);
      const orderBook = this.#address(`book${i}`);
      const binding: PairBinding = {
        pairId: s.pair.id,
        symbol: s.pair.symbol ?? s.pair.id,
        chain: rules.chain,
        orderBook,
        baseToken: this.#address(`base${i}`),
        // Pairs share one quote token, as pairs of one e-money token do on the venue.
        quoteToken: this.#address('quote'),
        rules,
      };
      const params = {
        ...bookSettingsFromPair(s.pair).params,
        self: orderBook,
        commissionWallet: COMMISSION,
        prefunded: s.prefunded ?? true,
      };
      this.pairs.set(binding.pairId, { binding, book: createBook(params) });
    });
  }

  #address(label: string): string {
    return this.chain === 'evm'
      ? `0x${Buffer.from(label).toString('hex').padStart(40, '0')}`
      : `C${label.toUpperCase().padEnd(55, 'X')}`;
  }

  pair(pairId: string): VenuePair {
    const p = this.pairs.get(pairId);
    if (p === undefined) throw new Error(`no pair ${pairId}`);
    return p;
  }

  balance(token: string, account: string): bigint {
    return this.balances.get(`${token}:${account}`) ?? 0n;
  }

  mint(token: string, account: string, amount: bigint): void {
    this.balances.set(`${token}:${account}`, this.balance(token, account) + amount);
  }

  get height(): bigint {
    return BigInt(this.blocks.length);
  }

  onBlock(listener: (block: Block) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  nextTxHash(): string {
    this.#txCounter++;
    return `0x${this.#txCounter.toString(16).padStart(64, '0')}`;
  }

  /** Queues a transaction for the next block. */
  enqueue(txHash: string, sender: string, pairId: string, action: Action): void {
    this.#mempool.push({ txHash, sender, pairId, action });
  }

  pendingHashes(): string[] {
    return this.#mempool.map((p) => p.txHash);
  }

  /** Another participant's order, sent straight to the book (raw internal units). */
  place(
    wallet: string,
    pairId: string,
    side: Side,
    quantity: bigint,
    price: bigint,
    crossId = 0n,
    extra: Partial<IncomingOrder> = {},
  ): string {
    const txHash = this.nextTxHash();
    const order: IncomingOrder = {
      quantity,
      price,
      crossId,
      type: 'limit',
      condition: 'standard',
      validity: 'gfd',
      lifetimeDays: 0,
      reportingData: new Uint8Array([0]),
      ...extra,
    };
    this.enqueue(txHash, wallet, pairId, ({ book, ledger }) => {
      const r = submitOrder(book, this.#ctx(ledger), wallet, side, () => order);
      return { events: r.events, orderId: r.orderId };
    });
    return txHash;
  }

  cancel(wallet: string, pairId: string, side: Side, orderId: bigint): string {
    const txHash = this.nextTxHash();
    this.enqueue(txHash, wallet, pairId, ({ book, ledger }) => ({
      events: cancelOrder(book, this.#ctx(ledger), wallet, side, orderId, 'ByParticipant'),
      orderId: null,
    }));
    return txHash;
  }

  adminCancel(pairId: string, side: Side, orderId: bigint): string {
    const txHash = this.nextTxHash();
    this.enqueue(txHash, OPERATOR, pairId, ({ book, ledger }) => ({
      events: cancelOrder(book, this.#ctx(ledger), OPERATOR, side, orderId, 'ByAdmin'),
      orderId: null,
    }));
    return txHash;
  }

  clear(pairId: string): string {
    const txHash = this.nextTxHash();
    this.enqueue(txHash, OPERATOR, pairId, ({ book, ledger }) => ({
      events: clearOrders(book, this.#ctx(ledger)),
      orderId: null,
    }));
    return txHash;
  }

  #ctx(ledger: Ledger): BookContext {
    return {
      ledger,
      nowSeconds: 1_800_000_000n + this.height,
      client: (account) =>
        account === OPERATOR
          ? undefined
          : { canBuy: true, canSell: true, canCancel: true, isMarketMaker: this.marketMakers.has(account) },
    };
  }

  #hashOf(height: bigint): string {
    if (this.#fork === 0) return `0xb${height.toString(16).padStart(63, '0')}`;
    return `0xf${this.#fork.toString(16).padStart(2, '0')}${height.toString(16).padStart(61, '0')}`;
  }

  /** Includes every queued transaction in a new block, each all-or-nothing, and tells the listeners. */
  mine(): Block {
    const height = this.height + 1n;
    this.#before.push({
      books: new Map([...this.pairs].map(([id, p]) => [id, cloneBook(p.book)])),
      balances: new Map(this.balances),
    });
    for (const p of this.#mempool) this.#sent.set(p.txHash, p);
    const txs = this.#mempool.map((p) => this.#execute(p, height));
    this.#mempool = [];
    const block: Block = { height, hash: this.#hashOf(height), timeMs: 1_800_000_000_000 + Number(height) * 1000, txs };
    this.blocks.push(block);
    for (const l of this.#listeners) l(block);
    return block;
  }

  #execute(p: Pending, height: bigint): TxRecord {
    const pair = this.pair(p.pairId);
    const saved = { book: cloneBook(pair.book), balances: new Map(this.balances) };
    const moves: Array<{ token: Token; from: string; to: string; amount: bigint }> = [];
    const b = pair.binding;
    const tokenOf = (t: Token) => (t === 'base' ? b.baseToken : b.quoteToken);
    const ledger: Ledger = {
      balance: (t, a) => this.balance(tokenOf(t), a),
      allowance: () => 1n << 200n,
      transfer: (t, from, to, amount) => {
        const have = this.balance(tokenOf(t), from);
        if (have < amount)
          throw new DltError('E_VENUE_INSUFFICIENT_BALANCE', `${from} has ${have} ${t}, needs ${amount}`);
        this.balances.set(`${tokenOf(t)}:${from}`, have - amount);
        this.mint(tokenOf(t), to, amount);
        moves.push({ token: t, from, to, amount });
      },
      transferFrom: (t, _spender, from, to, amount) => ledger.transfer(t, from, to, amount),
    };
    try {
      const { events, orderId } = p.action({ pair, ledger, book: pair.book });
      const chainEvents = toChainEvents(events, moves, b, tokenOf);
      const meta = (i: number) => ({
        key: `${p.txHash}:${i}`,
        pairId: b.pairId,
        txHash: p.txHash,
        height,
        blockHash: this.#hashOf(height),
        timeMs: 1_800_000_000_000 + Number(height) * 1000,
      });
      return {
        txHash: p.txHash,
        sender: p.sender,
        ok: true,
        error: null,
        orderId,
        events: chainEvents.map((e, i) => ({ ...meta(i), ...e }) as ChainEvent),
      };
    } catch (e) {
      pair.book = saved.book;
      this.balances.clear();
      for (const [k, v] of saved.balances) this.balances.set(k, v);
      const error = e instanceof DltError ? e : new DltError('E_VENUE_CONTRACT_ERROR', String(e));
      return { txHash: p.txHash, sender: p.sender, ok: false, error, orderId: null, events: [] };
    }
  }

  /**
   * A reorganisation: the blocks above `keep` are replaced. The state goes back to what it was after block
   * `keep`; the transactions in `again` are queued, in that order, behind whatever is queued already, to be
   * mined again by the next `mine()` (in blocks of new hashes); every other transaction of the replaced
   * blocks is gone. Listeners are not told: followers find out when they next read.
   */
  reorg(keep: bigint, again: readonly string[] = []): void {
    const state = this.#before[Number(keep)];
    if (state === undefined) throw new Error(`no block above ${keep} to replace`);
    for (const [id, book] of state.books) this.pair(id).book = cloneBook(book);
    this.balances.clear();
    for (const [k, v] of state.balances) this.balances.set(k, v);
    this.blocks.length = Number(keep);
    this.#before.length = Number(keep);
    this.#fork += 1;
    const queued = again.map((h) => {
      const p = this.#sent.get(h);
      if (p === undefined) throw new Error(`transaction ${h} was never mined`);
      return p;
    });
    this.#mempool = [...this.#mempool, ...queued];
  }

  /** Every transaction ever included, by hash. */
  tx(txHash: string): (TxRecord & { height: bigint }) | undefined {
    for (const b of this.blocks) for (const t of b.txs) if (t.txHash === txHash) return { ...t, height: b.height };
    return undefined;
  }
}
