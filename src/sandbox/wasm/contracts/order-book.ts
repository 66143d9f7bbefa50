/**
 * The chain B order book contract: the specification's method table over the shared matching engine
 * (src/sandbox/matching). The engine mutates the book and moves tokens through the `Ledger` this contract
 * builds on its two token contracts; before each mutating call the book is snapshotted into the journal, so
 * a failure restores everything. `user` must authorize its own orders and cancellations; the operator
 * methods check the admin (`#4001` otherwise).
 */
import { DltError } from '../../../core/errors.ts';
import type { Side } from '../../../core/order-terms.ts';
import { cancelOrder, clearOrders, cloneBook, createBook, submitOrder } from '../../matching/engine.ts';
import type {
  Book,
  BookContext,
  BookEvent,
  BookParams,
  IncomingOrder,
  Ledger,
  Phase,
  Token,
} from '../../matching/types.ts';
import { emit, requireAuth, touchData, type ContractImpl, type DataEntry, type Env, type Frame } from '../host.ts';
import { read, scv, type ScVal } from '../scval.ts';
import { encodeBookEvent, hasEventId } from './book-events.ts';
import { dispatch } from './entry-points.ts';
import { ORDER_BOOK_ENTRY_POINTS, PHASE_NAMES } from './order-book-entry-points.ts';
import type { RegistryContract } from './registry.ts';
import type { TokenContract } from './token.ts';
import type { xdr } from '@stellar/stellar-sdk';

export { PHASE_NAMES } from './order-book-entry-points.ts';

const BOOK_KEY = scv.sym('OrderBook');

export interface OrderBookSetup {
  readonly address: string;
  readonly admin: string;
  readonly commissionWallet: string;
  readonly base: TokenContract;
  readonly quote: TokenContract;
  readonly registry: RegistryContract;
  /** Book parameters; `self` and `commissionWallet` are overwritten with the addresses above. */
  readonly params: BookParams;
  readonly liquidityBand: number;
  readonly version: string;
  readonly wasmHash: Uint8Array;
}

export class OrderBookContract implements ContractImpl {
  readonly address: string;
  readonly setup: OrderBookSetup;
  readonly executable: xdr.ContractExecutableWire;
  book: Book;
  nextEventId = 1n;

  constructor(setup: OrderBookSetup) {
    this.setup = setup;
    this.address = setup.address;
    this.executable = { type: 0, wasmHash: setup.wasmHash };
    this.book = createBook({ ...setup.params, self: setup.address, commissionWallet: setup.commissionWallet });
  }

  call(env: Env, frame: Frame, fn: string, args: readonly ScVal[]): ScVal {
    return dispatch(ORDER_BOOK_ENTRY_POINTS, 'order book', { contract: this, env, frame, fn, args });
  }

  placeOrder(env: Env, user: string, side: Side, decode: () => IncomingOrder): bigint {
    this.snapshot(env);
    const result = submitOrder(this.book, this.context(env), user, side, decode);
    this.emitAll(env, result.events);
    return result.orderId;
  }

  cancel(env: Env, caller: string, side: Side, orderId: bigint, by: 'ByParticipant' | 'ByAdmin'): void {
    this.snapshot(env);
    this.emitAll(env, cancelOrder(this.book, this.context(env), caller, side, orderId, by));
  }

  clear(env: Env): void {
    this.snapshot(env);
    this.emitAll(env, clearOrders(this.book, this.context(env)));
  }

  setPhase(env: Env, phase: Phase): void {
    this.snapshot(env);
    this.book.phase = phase;
  }

  setStaticReferencePrice(env: Env, price: bigint): void {
    this.snapshot(env);
    this.book.staticReferencePrice = price;
  }

  /** The admin calling an operator method, authorized; anyone else fails with `#4001`. */
  operator(env: Env, frame: Frame, caller: ScVal | undefined): string {
    const who = read.address(caller, 'caller');
    requireAuth(env, frame, who);
    if (who !== this.setup.admin) throw new DltError('E_VENUE_UNAUTHORIZED', `${who} is not the order book admin`);
    return who;
  }

  /** The journal restores the book and the event counter if the transaction fails. */
  private snapshot(env: Env): void {
    touchData(env, this.address, BOOK_KEY, 'persistent', true);
    const book = cloneBook(this.book);
    const nextEventId = this.nextEventId;
    env.journal.record(() => {
      this.book = book;
      this.nextEventId = nextEventId;
    });
  }

  private emitAll(env: Env, events: readonly BookEvent[]): void {
    const tokens = { base: this.setup.base.address, quote: this.setup.quote.address };
    for (const e of events) {
      const id = hasEventId(e) ? this.nextEventId++ : 0n;
      const { topics, data } = encodeBookEvent(e, id, tokens);
      emit(env, this.address, topics, data);
    }
  }

  private context(env: Env): BookContext {
    const token = (t: Token): TokenContract => (t === 'base' ? this.setup.base : this.setup.quote);
    const ledger: Ledger = {
      balance: (t, account) => token(t).balanceOf(account),
      allowance: (t, owner, spender) => token(t).allowance(env, owner, spender),
      transfer: (t, from, to, amount) => token(t).transfer(env, from, to, amount),
      transferFrom: (t, spender, from, to, amount) => token(t).transferFrom(env, spender, from, to, amount),
    };
    const registry = this.setup.registry;
    return { ledger, client: (account) => registry.lookup(env, account), nowSeconds: env.closeTime };
  }

  config(): ScVal {
    const setup = this.setup;
    const params = this.book.params;
    return scv.struct({
      admin: scv.address(setup.admin),
      base_native_scale: scv.u128(params.scales.baseNative),
      base_scale: scv.u128(params.scales.baseInternal),
      base_token: scv.address(setup.base.address),
      commission_wallet: scv.address(setup.commissionWallet),
      liquidity_band: scv.u32(setup.liquidityBand),
      maker_commission: scv.u32(params.makerBps),
      market_maker_commission: scv.u32(params.marketMakerBps),
      maximum_matches: scv.u32(params.maximumMatches),
      no_prefund_config: scv.bool(!params.prefunded),
      quote_native_scale: scv.u128(params.scales.quoteNative),
      quote_scale: scv.u128(params.scales.quoteInternal),
      quote_token: scv.address(setup.quote.address),
      registry: scv.address(setup.registry.address),
      taker_commission: scv.u32(params.takerBps),
      version: scv.str(setup.version),
    });
  }

  /** The book's state entry, summarised: what a footprint names when an order call writes the book. */
  dataEntry(key: ScVal, durability: 'persistent' | 'temporary', ledgerSeq: number): DataEntry | undefined {
    if (durability !== 'persistent' || key.type !== 15 || key.sym.toString() !== 'OrderBook') return undefined;
    const book = this.book;
    return {
      val: scv.struct({
        buy_orders: scv.u64(BigInt(book.buys.length)),
        last_price: scv.u64(book.lastPrice),
        next_order_id: scv.u64(book.nextOrderId),
        phase: scv.sym(PHASE_NAMES[book.phase]),
        sell_orders: scv.u64(BigInt(book.sells.length)),
        static_reference_price: scv.u64(book.staticReferencePrice),
      }),
      lastModified: ledgerSeq,
      liveUntil: ledgerSeq + 3_110_400,
    };
  }
}
