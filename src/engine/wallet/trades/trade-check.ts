/**
 * One wallet's periodic trade reconciliation: reads the venue's list of the wallet's trades, compares it
 * with the wallet's fills in the store (compare-trades.ts) and reports each mismatch once: a warning with
 * the ids and `dltmm_trade_reconciliation_mismatches_total{wallet,kind}`. A fill's grace counts from the
 * first comparison that saw it; a fill of a pair the wallet does not trade (no scales) is left out.
 */
import type { Counter } from 'prom-client';
import type { Clock } from '../../../core/clock.ts';
import { formatDecimal } from '../../../core/decimal.ts';
import { priceFromRaw, quantityFromRaw, type PairScales } from '../../../core/units.ts';
import type { FillRecord } from '../../../store/order-rows.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import type { Logger } from '../../../telemetry/logger.ts';
import type { Metrics } from '../../../telemetry/metrics.ts';
import type { VenueTrade } from '../../../venue/payload/wallet-trades.ts';
import { compareTrades, type FillView, type Mismatch, type VenueTradeView } from './compare-trades.ts';

export interface WalletTradesSource {
  getWalletTrades(walletAddress: string): Promise<VenueTrade[]>;
}

export interface TradeCheckOptions {
  readonly wallet: string;
  readonly chain: 'evm' | 'wasm';
  readonly source: WalletTradesSource;
  readonly orders: {
    fills(filter: { wallet: string }): FillRecord[];
    get(wallet: string, clientOrderId: bigint): StoredOrder | undefined;
  };
  /** The pair's scales; undefined for a pair the wallet does not trade. */
  scales(pairId: string): PairScales | undefined;
  /** How long after a trade is final (venue) or first compared (our fill) it must be matched. */
  readonly graceMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export interface TradeCheckReport {
  readonly venueTrades: number;
  readonly fills: number;
  /** Every mismatch due now, reported before or not. */
  readonly mismatches: readonly Mismatch[];
  /** Those reported for the first time by this check. */
  readonly reported: number;
}

export function mismatchCounter(metrics: Metrics): Counter<'wallet' | 'kind'> {
  return metrics.counter({
    name: 'trade_reconciliation_mismatches_total',
    help: 'Trades the venue lists and the chain attribution did not find (venue-only), fills of ours the venue does not list (chain-only), or both with another quantity or price (differs); each counted once',
    labelNames: ['wallet', 'kind'],
  });
}

function describe(m: Mismatch): Record<string, unknown> {
  const v = m.venue;
  const f = m.fill;
  return {
    ...(v === undefined
      ? {}
      : {
          venueTradeId: v.id,
          orderId: v.orderId.toString(),
          txHash: v.txHash,
          venueQuantity: formatDecimal(v.quantity),
          venuePrice: formatDecimal(v.price),
        }),
    ...(f === undefined
      ? {}
      : {
          fillId: f.fillId,
          ...(v === undefined ? { orderId: f.orderId?.toString() ?? null, txHash: f.txHash } : {}),
          fillQuantity: formatDecimal(f.quantity),
          fillPrice: formatDecimal(f.price),
        }),
  };
}

const MESSAGES: Readonly<Record<Mismatch['kind'], string>> = {
  'venue-only': 'the venue lists a trade of ours that the chain attribution did not find',
  'chain-only': 'a fill of ours on the chain is not in the venue list of our trades',
  differs: 'the venue lists a trade of ours with another quantity or price than the chain',
};

export class TradeCheck {
  readonly #options: TradeCheckOptions;
  readonly #counter: Counter<'wallet' | 'kind'>;
  readonly #firstSeen = new Map<string, number>();
  readonly #reported = new Set<string>();

  constructor(options: TradeCheckOptions) {
    this.#options = options;
    this.#counter = mismatchCounter(options.metrics);
    // Every series exists from the start at 0, so that its first mismatch is an increase an alert sees.
    for (const kind of Object.keys(MESSAGES)) this.#counter.inc({ wallet: options.wallet, kind }, 0);
  }

  get wallet(): string {
    return this.#options.wallet;
  }

  get chain(): 'evm' | 'wasm' {
    return this.#options.chain;
  }

  async check(): Promise<TradeCheckReport> {
    const o = this.#options;
    const trades = await o.source.getWalletTrades(o.wallet);
    const now = o.clock.now();
    const venue: VenueTradeView[] = trades.map((t) => ({
      id: t.id,
      orderId: t.orderId,
      txHash: t.transactionHash,
      quantity: t.baseQuantity,
      price: t.price,
      finalAtMs: t.finalityDate ?? null,
    }));
    const fills: FillView[] = [];
    for (const f of o.orders.fills({ wallet: o.wallet })) {
      const scales = o.scales(f.pairId);
      if (scales === undefined) continue;
      const sinceMs = this.#firstSeen.get(f.fillId) ?? now;
      this.#firstSeen.set(f.fillId, sinceMs);
      fills.push({
        fillId: f.fillId,
        orderId: o.orders.get(o.wallet, f.clientOrderId)?.orderId ?? null,
        txHash: f.txHash,
        quantity: quantityFromRaw(f.quantity, scales),
        price: priceFromRaw(f.price, scales),
        sinceMs,
      });
    }
    const mismatches = compareTrades(venue, fills, now, o.graceMs);
    let reported = 0;
    for (const m of mismatches) {
      if (this.#reported.has(m.key)) continue;
      this.#reported.add(m.key);
      reported++;
      this.#counter.inc({ wallet: o.wallet, kind: m.kind });
      o.logger.warn({ wallet: o.wallet, chain: o.chain, kind: m.kind, ...describe(m) }, MESSAGES[m.kind]);
    }
    return { venueTrades: venue.length, fills: fills.length, mismatches, reported };
  }
}
