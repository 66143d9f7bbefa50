/**
 * The venue's word on how an order of ours ended. When reconciliation finds an order the store holds resting
 * that the venue's open list no longer shows, the wallet's list with `only_open=false` may hold its record:
 * filled, cancelled or rejected, with the venue's reason. That record is evidence, never the truth about
 * balances or fills (those come from the chain's events): it is asked once per pair and reconciliation, and a
 * record counts only when its order id, pair and cross identifier (our client order id) are ours.
 */
import type { StoredOrder } from '../../../store/order-store.ts';
import type { VenueOrder } from '../../../venue/payload/orders.ts';
import type { WalletContext } from '../wallet-context.ts';

/** `GET /wallets/{address}/orders?only_open=false&trading_pair=...`: the pair's orders, ended ones too. */
export type ReadOrderHistory = (address: string, pairId: string) => Promise<VenueOrder[]>;

export class VenueOrderHistory {
  readonly #ctx: WalletContext;
  readonly #read: ReadOrderHistory | undefined;
  readonly #pairs = new Map<string, Promise<VenueOrder[] | null>>();

  constructor(ctx: WalletContext, read: ReadOrderHistory | undefined) {
    this.#ctx = ctx;
    this.#read = read;
  }

  /** The venue's record of the order; null when the venue was not asked, did not answer or holds none. */
  async recordOf(order: StoredOrder): Promise<VenueOrder | null> {
    const read = this.#read;
    if (read === undefined || order.orderId === null) return null;
    let list = this.#pairs.get(order.pairId);
    if (list === undefined) {
      list = read(this.#ctx.wallet, order.pairId).catch((e: unknown) => {
        this.#ctx.logger.warn(
          { err: e, pairId: order.pairId },
          "could not read the venue's list of ended orders; deciding from the chain alone",
        );
        return null;
      });
      this.#pairs.set(order.pairId, list);
    }
    return (
      (await list)?.find(
        (v) =>
          v.externalOrderId === order.orderId &&
          (v.tradingPairId === undefined || v.tradingPairId === order.pairId) &&
          (v.crossIdentifier === undefined || v.crossIdentifier === order.clientOrderId),
      ) ?? null
    );
  }
}
