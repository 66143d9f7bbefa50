/** Risk limits of one pair, resolved from the config's defaults and the pair's overrides. */
import { Decimal } from '../../core/decimal.ts';

export interface RiskLimits {
  /** Largest base position (absolute) the strategy may build; bids that could exceed it are not sent. */
  readonly maxInventory: Decimal | null;
  /** Largest |position * mark| in quote units. */
  readonly maxNotional: Decimal | null;
  /** Most live orders at once on this pair. */
  readonly maxOpenOrders: number | null;
  /** Largest single order value in quote units. */
  readonly maxOrderValue: Decimal | null;
  /** Loss since the start of the trading day (or since start-up) that trips the kill switch, quote units. */
  readonly dailyLossLimit: Decimal | null;
  /** Fall from the highest PnL seen that trips the kill switch, quote units. */
  readonly maxDrawdown: Decimal | null;
  /** Market data older than this pulls the quotes until fresh data arrives. */
  readonly staleMarketDataMs: number;
  /** Consecutive failed transactions before the pair stops; each failure backs off first. */
  readonly maxConsecutiveFailures: number;
  readonly failureBackoffMs: number;
  readonly failureBackoffMaxMs: number;
  /** Native fee balance (wei / stroops as a human decimal of the native token) below which an alert is raised. */
  readonly nativeAlert: Decimal | null;
  /** Native fee balance below which the wallet stops trading. */
  readonly nativeStop: Decimal | null;
  /** Placements and cancellations sent on the pair in a trading day after which no placement is sent. */
  readonly maxOrderMessagesPerDay: number | null;
  /** Order messages per trade of the day at which placements wait for fills (see order-trade.ts). */
  readonly maxOrderToTradeRatio: number | null;
}

export interface RiskLimitsInput {
  readonly maxInventory?: string | undefined;
  readonly maxNotional?: string | undefined;
  readonly maxOpenOrders?: number | undefined;
  readonly maxOrderValue?: string | undefined;
  readonly dailyLossLimit?: string | undefined;
  readonly maxDrawdown?: string | undefined;
  readonly staleMarketDataMs?: number | undefined;
  readonly maxConsecutiveFailures?: number | undefined;
  readonly failureBackoffMs?: number | undefined;
  readonly failureBackoffMaxMs?: number | undefined;
  readonly nativeAlert?: string | undefined;
  readonly nativeStop?: string | undefined;
  readonly maxOrderMessagesPerDay?: number | undefined;
  readonly maxOrderToTradeRatio?: number | undefined;
}

const dec = (s: string | undefined): Decimal | null => (s === undefined ? null : new Decimal(s));

/** Pair overrides win over the defaults, key by key. */
export function resolveLimits(defaults: RiskLimitsInput, pair: RiskLimitsInput = {}): RiskLimits {
  const pick = <K extends keyof RiskLimitsInput>(k: K): RiskLimitsInput[K] =>
    pair[k] !== undefined ? pair[k] : defaults[k];
  return {
    maxInventory: dec(pick('maxInventory')),
    maxNotional: dec(pick('maxNotional')),
    maxOpenOrders: pick('maxOpenOrders') ?? null,
    maxOrderValue: dec(pick('maxOrderValue')),
    dailyLossLimit: dec(pick('dailyLossLimit')),
    maxDrawdown: dec(pick('maxDrawdown')),
    staleMarketDataMs: pick('staleMarketDataMs') ?? 15_000,
    maxConsecutiveFailures: pick('maxConsecutiveFailures') ?? 5,
    failureBackoffMs: pick('failureBackoffMs') ?? 2_000,
    failureBackoffMaxMs: pick('failureBackoffMaxMs') ?? 60_000,
    nativeAlert: dec(pick('nativeAlert')),
    nativeStop: dec(pick('nativeStop')),
    maxOrderMessagesPerDay: pick('maxOrderMessagesPerDay') ?? null,
    maxOrderToTradeRatio: pick('maxOrderToTradeRatio') ?? null,
  };
}
