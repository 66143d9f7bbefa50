/**
 * The trades of the participant's wallets as the venue lists them (`GET /wallets/{address}/trades`): one
 * record per wallet and order in each match the indexers applied (the incoming order's and every resting
 * order it filled), at the match's one price, with the trade event's transaction. A sequence number counts
 * every record in the order the venue saw it. Chain B trades are final with their ledger; chain A trades once
 * the indexer has processed `finalityBlocks` further blocks. Records can also be injected (a control endpoint)
 * to stand for a trade the chain never had.
 */
import type { Side } from '../../core/order-terms.ts';
import type { EventOrigin, MatchView } from './market.ts';

export interface WalletTrade {
  readonly sequenceNo: number;
  readonly wallet: string;
  readonly pairId: string;
  readonly chain: 'evm' | 'wasm';
  /** The on-chain id of the wallet's order that traded. */
  readonly orderId: bigint;
  readonly side: Side;
  readonly role: 'maker' | 'taker';
  /** Raw internal units. */
  readonly quantity: bigint;
  readonly price: bigint;
  readonly txHash: string;
  readonly height: number;
  /** Sandbox clock when the venue saw the trade. */
  readonly atMs: number;
  /** Sandbox clock when the trade became final; null until then. */
  finalAtMs: number | null;
  /** Recorded by the control endpoint, not by an indexer. */
  readonly injected: boolean;
}

export type TradeInput = Omit<WalletTrade, 'sequenceNo' | 'finalAtMs'>;

/** Chain A blocks on top of a trade's block before the venue calls it final. */
export const DEFAULT_FINALITY_BLOCKS = 2;
const MAX_TRADES = 200_000;

export class WalletTrades {
  readonly #finalityBlocks: number;
  #trades: WalletTrade[] = [];
  #next = 1;

  constructor(finalityBlocks = DEFAULT_FINALITY_BLOCKS) {
    this.#finalityBlocks = finalityBlocks;
  }

  /** Records one trade; chain B trades (and injected ones that say so) are final at once. */
  add(t: TradeInput, final = t.chain === 'wasm'): WalletTrade {
    const trade: WalletTrade = { ...t, sequenceNo: this.#next++, finalAtMs: final ? t.atMs : null };
    this.#trades.push(trade);
    if (this.#trades.length > MAX_TRADES) this.#trades = this.#trades.slice(this.#trades.length - MAX_TRADES);
    return trade;
  }

  /** The records of one match for the wallets `ours` accepts: the incoming order's and each resting order's. */
  addMatch(pair: { id: string; chain: 'evm' | 'wasm' }, m: MatchView, ours: (wallet: string) => boolean): void {
    const origin: EventOrigin = m.origin ?? { txHash: '', height: 0 };
    const common = { pairId: pair.id, chain: pair.chain, price: m.price, atMs: m.atMs, injected: false, ...origin };
    if (ours(m.takerWallet)) {
      this.add({
        ...common,
        wallet: m.takerWallet,
        orderId: m.takerOrderId,
        side: m.takerSide,
        role: 'taker',
        quantity: m.quantity,
      });
    }
    for (const f of m.fills) {
      if (!ours(f.order.wallet)) continue;
      this.add({
        ...common,
        wallet: f.order.wallet,
        orderId: f.order.orderId,
        side: f.order.side,
        role: 'maker',
        quantity: f.quantity,
      });
    }
  }

  /** The chain A indexer processed every block up to `block`: trades deep enough below it are final now. */
  processed(chain: 'evm' | 'wasm', block: number, nowMs: number): void {
    for (const t of this.#trades) {
      if (t.finalAtMs === null && t.chain === chain && t.height + this.#finalityBlocks <= block) t.finalAtMs = nowMs;
    }
  }

  /** The trades that pass the filter, in sequence order. */
  list(filter: (t: WalletTrade) => boolean): WalletTrade[] {
    return this.#trades.filter(filter);
  }

  get count(): number {
    return this.#trades.length;
  }
}
