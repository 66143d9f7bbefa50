/**
 * `POST /sandbox/trades`: records a trade of a participant wallet that no chain ever had, as a venue whose
 * back end went wrong would list it. A test provokes the bot's trade reconciliation with it. Body:
 * `{wallet, pair (id or symbol), side, quantity, price (human decimal strings), orderId?, txHash?, role?,
 * final?}`; without `txHash` a made-up one is used, without `orderId` 0, and the trade is final unless
 * `final: false`. Answers the trade as `GET /wallets/{address}/trades` lists it.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Decimal, DECIMAL_STRING_PATTERN } from '../../core/decimal.ts';
import { priceToRaw, quantityToRaw } from '../../core/units.ts';
import { badRequest, notFound } from '../api/http-error.ts';
import { tradeRecord } from '../api/trade-records.ts';
import { walletKey, type VenueState } from '../api/venue-state.ts';

const decimalText = z.string().regex(DECIMAL_STRING_PATTERN, 'a decimal string');

export const injectTradeSchema = z.strictObject({
  wallet: z.string().min(1).max(128),
  pair: z.string().min(1).max(255),
  side: z.enum(['buy', 'sell']),
  quantity: decimalText,
  price: decimalText,
  orderId: z
    .string()
    .regex(/^[0-9]{1,20}$/)
    .optional(),
  txHash: z.string().min(1).max(128).optional(),
  role: z.enum(['maker', 'taker']).optional(),
  final: z.boolean().optional(),
});

export type InjectTrade = z.infer<typeof injectTradeSchema>;

export function injectTrade(state: VenueState, nowMs: number, v: InjectTrade): Record<string, unknown> {
  const p = state.pairByIdOrSymbol(v.pair);
  if (p === undefined) throw notFound(`No pair ${v.pair}`);
  const wallet = state.wallets.find((w) => walletKey(w.address) === walletKey(v.wallet));
  if (wallet === undefined) throw notFound(`No participant wallet ${v.wallet}`);
  let quantity: bigint;
  let price: bigint;
  try {
    quantity = quantityToRaw(new Decimal(v.quantity), p.scales);
    price = priceToRaw(new Decimal(v.price), p.scales);
  } catch (e) {
    throw badRequest(e instanceof Error ? e.message : String(e));
  }
  if (quantity === 0n || price === 0n) throw badRequest('quantity and price must be positive');
  const made = createHash('sha256').update(`injected ${state.trades.count} ${nowMs} ${v.wallet}`).digest('hex');
  const trade = state.trades.add(
    {
      wallet: wallet.address,
      pairId: p.id,
      chain: p.chain,
      orderId: BigInt(v.orderId ?? '0'),
      side: v.side,
      role: v.role ?? 'maker',
      quantity,
      price,
      txHash: v.txHash ?? (p.chain === 'evm' ? `0x${made}` : made),
      height: 0,
      atMs: nowMs,
      injected: true,
    },
    v.final ?? true,
  );
  return tradeRecord(p, trade, wallet.marketMaker === true);
}
