/** One sample of a pair for the trading-day report: its money figures and our best quotes resting now. */
import { Decimal } from '../../core/decimal.ts';
import { priceFromRaw, type PairScales } from '../../core/units.ts';
import type { PairSample } from '../../store/obligation-store.ts';
import type { PairMoney } from './tracker.ts';

export function sampleOf(
  pairId: string,
  now: number,
  money: PairMoney | null,
  spans: ReadonlyArray<{ readonly side: 'buy' | 'sell'; readonly price: bigint }>,
  scales: PairScales,
  s: { readonly maxSpreadBps: number | null; readonly compliantNow: boolean; readonly presence: number | null } | null,
): PairSample {
  const bids = spans.filter((q) => q.side === 'buy').map((q) => q.price);
  const asks = spans.filter((q) => q.side === 'sell').map((q) => q.price);
  const bid = bids.length === 0 ? null : bids.reduce((a, b) => (b > a ? b : a));
  const ask = asks.length === 0 ? null : asks.reduce((a, b) => (b < a ? b : a));
  const zero = new Decimal(0);
  const spreadBps =
    bid !== null && ask !== null && ask + bid > 0n
      ? new Decimal((ask - bid).toString())
          .mul(20_000)
          .div((ask + bid).toString())
          .toNumber()
      : null;
  return {
    pairId,
    atMs: now,
    mark: money?.mark?.toFixed() ?? null,
    value: money?.value?.toFixed() ?? null,
    position: (money?.position ?? zero).toFixed(),
    realised: (money?.realised ?? zero).toFixed(),
    unrealised: (money?.unrealised ?? zero).toFixed(),
    fees: (money?.fees ?? zero).toFixed(),
    bid: bid === null ? null : priceFromRaw(bid, scales).toFixed(),
    ask: ask === null ? null : priceFromRaw(ask, scales).toFixed(),
    spreadBps,
    maxSpreadBps: s?.maxSpreadBps ?? null,
    compliant: s === null ? null : s.compliantNow,
    presence: s?.presence ?? null,
  };
}
