/**
 * `GET /wallets/{address}/trades`: the wallet's trades in sequence order (oldest first, so that a cursor
 * stays valid while new trades arrive), paged like the order lists (`limit` 1-1000, default 100, `cursor`
 * from `next_cursor`, `count` adds `total_count`, optional `trading_pair`). Field names where the venue
 * publishes only the meaning are the sandbox's choice (src/sandbox/README.md).
 */
import { Decimal, formatDecimal } from '../../core/decimal.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import { badRequest } from './http-error.ts';
import { parseBoolean, parseLimit } from './query.ts';
import { iso } from './render.ts';
import { walletKey, type VenuePair, type VenueState } from './venue-state.ts';
import type { WalletTrade } from './wallet-trades.ts';

const TRADE_PAGE = 100;
const BPS = new Decimal(10_000);

export function tradeCursor(sequenceNo: number): string {
  return Buffer.from(JSON.stringify(['trade', sequenceNo]), 'utf8').toString('base64url');
}

/** The sequence number a trade cursor stands for (the list resumes after it); undefined when absent. */
export function parseTradeCursor(params: URLSearchParams): number | undefined {
  const raw = params.get('cursor');
  if (raw === null || raw === '') return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && v[0] === 'trade' && Number.isSafeInteger(v[1])) return v[1] as number;
  } catch {
    // Not one of ours: refused below.
  }
  throw badRequest(`cursor ${JSON.stringify(raw)} was not issued by this API`);
}

/** The commission rate of the trade: a market maker's own rate, else the maker or taker rate (basis points). */
function rateBps(p: VenuePair, t: WalletTrade, marketMaker: boolean): number {
  const r = p.record;
  if (marketMaker) return r.marketMakerCommission ?? 0;
  return (t.role === 'maker' ? r.makerCommission : r.takerCommission) ?? 0;
}

/**
 * One trade record. `commission` is the quote value times the wallet's rate, exactly (the chain settles it
 * in the quote token's native units); `finalityDate` is null until the trade is final.
 */
export function tradeRecord(p: VenuePair, t: WalletTrade, marketMaker: boolean): Record<string, unknown> {
  const quantity = quantityFromRaw(t.quantity, p.scales);
  const price = priceFromRaw(t.price, p.scales);
  const quote = quantity.mul(price);
  return {
    id: `${p.id}:${t.sequenceNo}`,
    sequenceNo: t.sequenceNo,
    transactionDate: iso(t.atMs),
    finalityDate: t.finalAtMs === null ? null : iso(t.finalAtMs),
    transactionType: t.side.toUpperCase(),
    tradingPairId: p.id,
    walletAddress: t.wallet,
    baseTokenSymbol: p.record.baseTokenData?.symbol ?? p.symbol,
    baseTokenQuantity: formatDecimal(quantity),
    quoteTokenSymbol: p.record.quoteTokenSymbol,
    quoteTokenQuantity: formatDecimal(quote),
    price: formatDecimal(price),
    commission: formatDecimal(quote.mul(rateBps(p, t, marketMaker)).div(BPS)),
    orderId: t.orderId.toString(),
    transactionHash: t.txHash,
    liquidityRole: t.role.toUpperCase(),
  };
}

export function tradesBody(params: URLSearchParams, state: VenueState, address: string): Record<string, unknown> {
  const pair = params.get('trading_pair');
  const limit = parseLimit(params, 'limit') ?? TRADE_PAGE;
  const count = parseBoolean(params, 'count') ?? false;
  const after = parseTradeCursor(params) ?? 0;
  const key = walletKey(address);
  const marketMaker = state.wallets.some((w) => walletKey(w.address) === key && w.marketMaker === true);
  const all = state.trades.list(
    (t) => walletKey(t.wallet) === key && (pair === null || pair === '' || t.pairId === pair),
  );
  const rest = all.filter((t) => t.sequenceNo > after);
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  const items = page.flatMap((t) => {
    const p = state.pair(t.pairId);
    return p === undefined ? [] : [tradeRecord(p, t, marketMaker)];
  });
  return {
    items,
    ...(rest.length > limit && last !== undefined ? { next_cursor: tradeCursor(last.sequenceNo) } : {}),
    ...(count ? { total_count: all.length } : {}),
  };
}
