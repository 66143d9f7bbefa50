/** Runs a maker-fill scenario on the fake venue: resting orders, one incoming order, and what really happened. */
import type { Side } from '../../../src/core/order-terms.ts';
import type { ChainEvent } from '../../../src/chains/types.ts';
import type { MakerCandidate } from '../../../src/engine/wallet/fills/maker-fills.ts';
import type { TradingPair } from '../../../src/core/pair.ts';
import { FakeVenue } from './fake-venue.ts';

export const MM = 'mm-wallet';
export const OTHER = 'other-wallet';
export const TAKER = 'taker-wallet';

export interface RestingSpec {
  readonly wallet: string;
  readonly side: Side;
  readonly quantity: bigint;
  readonly price: bigint;
}

export interface ScenarioResult {
  readonly venue: FakeVenue;
  readonly candidates: MakerCandidate[];
  readonly flows: { baseIn: bigint; quoteIn: bigint };
  readonly trade: { price: bigint; quantity: bigint } | null;
  /** Quantity of each of our orders that the incoming order filled, by order id. */
  readonly truth: Map<bigint, bigint>;
  /** Actual change of our wallet's balances in the incoming transaction. */
  readonly walletDelta: { base: bigint; quote: bigint };
  readonly events: readonly ChainEvent[];
}

export function runMakerScenario(
  pair: TradingPair,
  prefunded: boolean,
  resting: readonly RestingSpec[],
  incoming: { side: Side; quantity: bigint; price: bigint },
  options: { marketMaker?: boolean; lastPrice?: bigint } = {},
): ScenarioResult {
  const venue = new FakeVenue('evm', [{ pair, prefunded }]);
  const { binding } = venue.pair(pair.id);
  for (const w of [MM, OTHER, TAKER]) {
    venue.mint(binding.baseToken, w, 10n ** 18n);
    venue.mint(binding.quoteToken, w, 10n ** 18n);
  }
  if (options.marketMaker === true) venue.marketMakers.add(MM);
  if (options.lastPrice !== undefined) venue.pair(pair.id).book.lastPrice = options.lastPrice;
  resting.forEach((r, i) => venue.place(r.wallet, pair.id, r.side, r.quantity, r.price, BigInt(i + 1)));
  venue.mine();
  const book = venue.pair(pair.id).book;
  const ours = [...book.buys, ...book.sells].filter((o) => o.wallet === MM);
  const before = new Map(ours.map((o) => [o.id, o.remaining]));
  const candidates: MakerCandidate[] = ours
    .filter((o) => o.side !== incoming.side)
    .map((o) => ({
      clientOrderId: o.crossId,
      orderId: o.id,
      price: o.price,
      remaining: o.remaining,
      lockRateBps: o.lockRateBps,
    }));
  const balance = () => ({ base: venue.balance(binding.baseToken, MM), quote: venue.balance(binding.quoteToken, MM) });
  const start = balance();
  venue.place(TAKER, pair.id, incoming.side, incoming.quantity, incoming.price);
  const block = venue.mine();
  const tx = block.txs[0];
  if (tx === undefined || !tx.ok) throw new Error(`incoming order failed: ${tx?.error?.message}`);
  const end = balance();
  const after = new Map([...book.buys, ...book.sells].filter((o) => o.wallet === MM).map((o) => [o.id, o.remaining]));
  const truth = new Map(
    [...before].map(([id, rem]) => [id, rem - (after.get(id) ?? 0n)] as const).filter(([, f]) => f > 0n),
  );
  let baseIn = 0n;
  let quoteIn = 0n;
  for (const e of tx.events) {
    if (e.type !== 'Transfer') continue;
    const sign =
      e.from === binding.orderBook && e.to === MM ? 1n : e.from === MM && e.to === binding.orderBook ? -1n : 0n;
    if (e.token === 'base') baseIn += sign * e.amount;
    else quoteIn += sign * e.amount;
  }
  const t = tx.events.find((e) => e.type === 'Trade');
  return {
    venue,
    candidates,
    flows: { baseIn, quoteIn },
    trade: t?.type === 'Trade' ? { price: t.price, quantity: t.quantity } : null,
    truth,
    walletDelta: { base: end.base - start.base, quote: end.quote - start.quote },
    events: tx.events,
  };
}
