/**
 * Who the simulated takers traded with, from the venue's own view: per pair, the orders the informed and the
 * uninformed takers sent, and the fills their orders took from each resting order's wallet, as the indexer's
 * book attributes a trade event (price-time priority over the resting orders it knows). A taker is told by
 * its wallet, so the same split is what anyone reading the chains sees.
 */
import { quantityFromRaw } from '../../core/units.ts';
import { walletKey, type VenuePair } from '../api/venue-state.ts';

export type TakerKind = 'informed' | 'uninformed';

interface KindStats {
  orders: number;
  /** Resting order wallet -> fills and raw quantity. */
  readonly fills: Map<string, { fills: number; quantity: bigint }>;
}

export interface TakerKindView {
  readonly orders: number;
  readonly fillsByWallet: Record<string, { readonly fills: number; readonly quantity: string }>;
}

function view(pair: VenuePair, k: KindStats): TakerKindView {
  return {
    orders: k.orders,
    fillsByWallet: Object.fromEntries(
      [...k.fills].map(([wallet, f]) => [
        wallet,
        { fills: f.fills, quantity: quantityFromRaw(f.quantity, pair.scales).toFixed() },
      ]),
    ),
  };
}

export class TakerStats {
  readonly #pairs = new Map<string, { readonly pair: VenuePair; readonly kinds: Record<TakerKind, KindStats> }>();
  /** Wallet key -> which kind of taker it is, per pair (chain B takers have a wallet per pair). */
  readonly #wallets: ReadonlyMap<string, TakerKind>;

  /** `wallets`: the takers' wallet addresses and their kind. */
  constructor(pairs: readonly VenuePair[], wallets: ReadonlyMap<string, TakerKind>) {
    this.#wallets = new Map([...wallets].map(([address, kind]) => [walletKey(address), kind]));
    for (const pair of pairs) {
      const kinds = {
        informed: { orders: 0, fills: new Map() },
        uninformed: { orders: 0, fills: new Map() },
      };
      this.#pairs.set(pair.id, { pair, kinds });
      pair.market.listen({
        match: (_id, m) => {
          const kind = this.#wallets.get(walletKey(m.takerWallet));
          if (kind === undefined) return;
          for (const f of m.fills) {
            const seen = kinds[kind].fills.get(f.order.wallet) ?? { fills: 0, quantity: 0n };
            kinds[kind].fills.set(f.order.wallet, { fills: seen.fills + 1, quantity: seen.quantity + f.quantity });
          }
        },
      });
    }
  }

  /** A taker of `kind` sent an order on the pair. */
  order(pairId: string, kind: TakerKind): void {
    const p = this.#pairs.get(pairId);
    if (p !== undefined) p.kinds[kind].orders += 1;
  }

  /** Per pair id: `{ informed: { orders, fillsByWallet }, uninformed: {...} }`, quantities in human units. */
  describe(): Record<string, Record<TakerKind, TakerKindView>> {
    return Object.fromEntries(
      [...this.#pairs].map(([id, p]) => [
        id,
        { informed: view(p.pair, p.kinds.informed), uninformed: view(p.pair, p.kinds.uninformed) },
      ]),
    );
  }
}
