/**
 * The chain B order book contract: the specification's method table over the shared matching engine
 * (src/sandbox/matching). The engine mutates the book and moves tokens through the `Ledger` this contract
 * builds on its two token contracts; before each mutating call the book is snapshotted into the journal, so
 * a failure restores everything. `user` must authorize its own orders and cancellations; the operator
 * methods check the admin (`#4001` otherwise).
 */
import { DltError } from '../../../core/errors.ts';
import { decodeWasmCrossIdentifier, decodeWasmOrderData } from '../../../core/encoding/wasm-order.ts';
import type { Side } from '../../../core/order-terms.ts';
import {
  bestBidOffer,
  bestFiftyOffers,
  cancelOrder,
  clearOrders,
  cloneBook,
  createBook,
  submitOrder,
} from '../../matching/engine.ts';
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
import { hostFail } from '../host-error.ts';
import { emit, requireAuth, touchData, type ContractImpl, type DataEntry, type Env, type Frame } from '../host.ts';
import { arity, read, scv, type ScVal } from '../scval.ts';
import { encodeBookEvent, hasEventId } from './book-events.ts';
import type { RegistryContract } from './registry.ts';
import type { TokenContract } from './token.ts';
import type { xdr } from '@stellar/stellar-sdk';

export const PHASE_NAMES: Readonly<Record<Phase, string>> = {
  open: 'OpenForTrading',
  closed: 'ClosedForTrading',
  manualHalt: 'ManualHalt',
  automaticHalt: 'AutomaticHalt',
};
const PHASE_BY_NAME = new Map(Object.entries(PHASE_NAMES).map(([k, v]) => [v, k as Phase]));

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
    switch (fn) {
      case 'new_buy_order':
      case 'new_sell_order': {
        arity(args, 4, fn);
        const user = read.address(args[0], 'user');
        requireAuth(env, frame, user);
        const [orderData, crossId, reporting] = [
          read.bytes(args[1], 'order_data'),
          read.bytes(args[2], 'cross_identifier'),
          read.bytes(args[3], 'reporting_data'),
        ];
        this.placeOrder(env, user, fn === 'new_buy_order' ? 'buy' : 'sell', () =>
          decodeIncoming(orderData, crossId, reporting),
        );
        return scv.void();
      }
      case 'cancel_buy_order':
      case 'cancel_sell_order': {
        arity(args, 2, fn);
        const user = read.address(args[0], 'user');
        requireAuth(env, frame, user);
        this.cancel(
          env,
          user,
          fn === 'cancel_buy_order' ? 'buy' : 'sell',
          read.u64(args[1], 'order_id'),
          'ByParticipant',
        );
        return scv.void();
      }
      case 'get_config':
        return this.config();
      case 'get_order_book_phase':
        return scv.sym(PHASE_NAMES[this.book.phase]);
      case 'count_buy_orders':
        return scv.u64(BigInt(this.book.buys.length));
      case 'count_sell_orders':
        return scv.u64(BigInt(this.book.sells.length));
      case 'best_bid_offer':
        return scv.u256(bestBidOffer(this.book));
      case 'best_fifty_offers': {
        const { buys, sells } = bestFiftyOffers(this.book);
        return scv.vec([scv.vec(buys.map(scv.u256)), scv.vec(sells.map(scv.u256))]);
      }
      case 'get_static_reference_price':
        return scv.u64(this.book.staticReferencePrice);
      case 'get_last_price':
        return scv.u64(this.book.lastPrice);
      case 'set_phase': {
        arity(args, 2, fn);
        this.operator(env, frame, args[0]);
        const phase = PHASE_BY_NAME.get(read.symbol(args[1], 'phase'));
        if (phase === undefined)
          throw hostFail('value', 'invalidInput', `unknown phase ${read.symbol(args[1], 'phase')}`);
        this.setPhase(env, phase);
        return scv.void();
      }
      case 'admin_cancel_buy_order':
      case 'admin_cancel_sell_order': {
        arity(args, 2, fn);
        const admin = this.operator(env, frame, args[0]);
        this.cancel(
          env,
          admin,
          fn === 'admin_cancel_buy_order' ? 'buy' : 'sell',
          read.u64(args[1], 'order_id'),
          'ByAdmin',
        );
        return scv.void();
      }
      case 'clear_orders':
        arity(args, 1, fn);
        this.operator(env, frame, args[0]);
        this.clear(env);
        return scv.void();
      case 'set_static_reference_price': {
        arity(args, 2, fn);
        this.operator(env, frame, args[0]);
        this.setStaticReferencePrice(env, read.u64(args[1], 'price'));
        return scv.void();
      }
      default:
        throw hostFail('value', 'missingValue', `order book has no function ${fn}`);
    }
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

  private operator(env: Env, frame: Frame, caller: ScVal | undefined): string {
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

  private config(): ScVal {
    const s = this.setup;
    const p = this.book.params;
    return scv.struct({
      admin: scv.address(s.admin),
      base_native_scale: scv.u128(p.scales.baseNative),
      base_scale: scv.u128(p.scales.baseInternal),
      base_token: scv.address(s.base.address),
      commission_wallet: scv.address(s.commissionWallet),
      liquidity_band: scv.u32(s.liquidityBand),
      maker_commission: scv.u32(p.makerBps),
      market_maker_commission: scv.u32(p.marketMakerBps),
      maximum_matches: scv.u32(p.maximumMatches),
      no_prefund_config: scv.bool(!p.prefunded),
      quote_native_scale: scv.u128(p.scales.quoteNative),
      quote_scale: scv.u128(p.scales.quoteInternal),
      quote_token: scv.address(s.quote.address),
      registry: scv.address(s.registry.address),
      taker_commission: scv.u32(p.takerBps),
      version: scv.str(s.version),
    });
  }

  /** The book's state entry, summarised: what a footprint names when an order call writes the book. */
  dataEntry(key: ScVal, durability: 'persistent' | 'temporary', ledgerSeq: number): DataEntry | undefined {
    if (durability !== 'persistent' || key.type !== 15 || key.sym.toString() !== 'OrderBook') return undefined;
    const b = this.book;
    return {
      val: scv.struct({
        buy_orders: scv.u64(BigInt(b.buys.length)),
        last_price: scv.u64(b.lastPrice),
        next_order_id: scv.u64(b.nextOrderId),
        phase: scv.sym(PHASE_NAMES[b.phase]),
        sell_orders: scv.u64(BigInt(b.sells.length)),
        static_reference_price: scv.u64(b.staticReferencePrice),
      }),
      lastModified: ledgerSeq,
      liveUntil: ledgerSeq + 3_110_400,
    };
  }
}

/** The contract's decoding of its byte arguments; any defect is `#2004` InvalidInputOrderData. */
export function decodeIncoming(orderData: Uint8Array, crossId: Uint8Array, reporting: Uint8Array): IncomingOrder {
  try {
    const o = decodeWasmOrderData(orderData);
    if (reporting.length === 0 || reporting.length > 32)
      throw new Error(`reporting_data has ${reporting.length} bytes`);
    return { ...o, crossId: decodeWasmCrossIdentifier(crossId), reportingData: reporting };
  } catch (e) {
    throw new DltError('E_VENUE_INVALID_ORDER_DATA', `InvalidInputOrderData: ${(e as Error).message}`, { cause: e });
  }
}
