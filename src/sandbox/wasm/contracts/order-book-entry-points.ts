/** The chain B order book's entry points (the specification's method table), one per name. */
import { DltError } from '../../../core/errors.ts';
import { decodeWasmCrossIdentifier, decodeWasmOrderData } from '../../../core/encoding/wasm-order.ts';
import type { Side } from '../../../core/order-terms.ts';
import { bestBidOffer, bestFiftyOffers } from '../../matching/engine.ts';
import type { IncomingOrder, Phase } from '../../matching/types.ts';
import { hostFail } from '../host-error.ts';
import { requireAuth } from '../host.ts';
import { arity, read, scv, type ScVal } from '../scval.ts';
import type { EntryCall, EntryPoint, EntryPoints } from './entry-points.ts';
import type { OrderBookContract } from './order-book.ts';

export const PHASE_NAMES: Readonly<Record<Phase, string>> = {
  open: 'OpenForTrading',
  closed: 'ClosedForTrading',
  manualHalt: 'ManualHalt',
  automaticHalt: 'AutomaticHalt',
};
const PHASE_BY_NAME = new Map(Object.entries(PHASE_NAMES).map(([k, v]) => [v, k as Phase]));

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

type Call = EntryCall<OrderBookContract>;

/** `new_buy_order` / `new_sell_order(user, order_data, cross_identifier, reporting_data)`. */
function newOrder(side: Side): EntryPoint<OrderBookContract> {
  return ({ contract, env, frame, fn, args }: Call): ScVal => {
    arity(args, 4, fn);
    const user = read.address(args[0], 'user');
    requireAuth(env, frame, user);
    const [orderData, crossId, reporting] = [
      read.bytes(args[1], 'order_data'),
      read.bytes(args[2], 'cross_identifier'),
      read.bytes(args[3], 'reporting_data'),
    ];
    contract.placeOrder(env, user, side, () => decodeIncoming(orderData, crossId, reporting));
    return scv.void();
  };
}

/** `cancel_buy_order` / `cancel_sell_order(user, order_id)`: the owner cancels. */
function cancelOrder(side: Side): EntryPoint<OrderBookContract> {
  return ({ contract, env, frame, fn, args }: Call): ScVal => {
    arity(args, 2, fn);
    const user = read.address(args[0], 'user');
    requireAuth(env, frame, user);
    contract.cancel(env, user, side, read.u64(args[1], 'order_id'), 'ByParticipant');
    return scv.void();
  };
}

/** `admin_cancel_buy_order` / `admin_cancel_sell_order(caller, order_id)`: the admin cancels. */
function adminCancelOrder(side: Side): EntryPoint<OrderBookContract> {
  return ({ contract, env, frame, fn, args }: Call): ScVal => {
    arity(args, 2, fn);
    const admin = contract.operator(env, frame, args[0]);
    contract.cancel(env, admin, side, read.u64(args[1], 'order_id'), 'ByAdmin');
    return scv.void();
  };
}

export const ORDER_BOOK_ENTRY_POINTS: EntryPoints<OrderBookContract> = {
  new_buy_order: newOrder('buy'),
  new_sell_order: newOrder('sell'),
  cancel_buy_order: cancelOrder('buy'),
  cancel_sell_order: cancelOrder('sell'),
  get_config: ({ contract }) => contract.config(),
  get_order_book_phase: ({ contract }) => scv.sym(PHASE_NAMES[contract.book.phase]),
  count_buy_orders: ({ contract }) => scv.u64(BigInt(contract.book.buys.length)),
  count_sell_orders: ({ contract }) => scv.u64(BigInt(contract.book.sells.length)),
  best_bid_offer: ({ contract }) => scv.u256(bestBidOffer(contract.book)),
  best_fifty_offers: ({ contract }) => {
    const { buys, sells } = bestFiftyOffers(contract.book);
    return scv.vec([scv.vec(buys.map(scv.u256)), scv.vec(sells.map(scv.u256))]);
  },
  get_static_reference_price: ({ contract }) => scv.u64(contract.book.staticReferencePrice),
  get_last_price: ({ contract }) => scv.u64(contract.book.lastPrice),
  set_phase: ({ contract, env, frame, fn, args }) => {
    arity(args, 2, fn);
    contract.operator(env, frame, args[0]);
    const phase = PHASE_BY_NAME.get(read.symbol(args[1], 'phase'));
    if (phase === undefined) throw hostFail('value', 'invalidInput', `unknown phase ${read.symbol(args[1], 'phase')}`);
    contract.setPhase(env, phase);
    return scv.void();
  },
  admin_cancel_buy_order: adminCancelOrder('buy'),
  admin_cancel_sell_order: adminCancelOrder('sell'),
  clear_orders: ({ contract, env, frame, fn, args }) => {
    arity(args, 1, fn);
    contract.operator(env, frame, args[0]);
    contract.clear(env);
    return scv.void();
  },
  set_static_reference_price: ({ contract, env, frame, fn, args }) => {
    arity(args, 2, fn);
    contract.operator(env, frame, args[0]);
    contract.setStaticReferencePrice(env, read.u64(args[1], 'price'));
    return scv.void();
  },
};
