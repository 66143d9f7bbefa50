/**
 * The board's picture of the running bot at one instant, read from what the bot already keeps: our orders
 * resting on the book (the store, as the chain reported them), the PnL trackers, the venue status pollers,
 * the risk monitor (trading state, native fee balances) and the transaction journal. Reading costs one store
 * query per pair and per wallet; nothing here sends anything.
 */
import { Decimal } from '../../core/decimal.ts';
import { remainingOf } from '../../core/order-state.ts';
import { priceFromRaw, quantityFromRaw, type PairScales } from '../../core/units.ts';
import type { BotPhase } from '../../engine/loop/bot.ts';
import type { LastRound } from '../../engine/loop/pair-loop.ts';
import type { PnlTracker } from '../../engine/loop/pnl-tracker.ts';
import type { PairStatus } from '../../market/status.ts';
import type { RiskMonitor } from '../../engine/risk/monitor.ts';
import type { StoredOrder } from '../../store/order-store.ts';
import { pairState, type BoardModel, type Level, type MarkoutCell, type PairRow, type WalletRow } from './model.ts';
import type { ObligationsProvider } from './obligations.ts';
import type { RecentWarnings } from './warnings.ts';

/** What the board reads of the running bot (`Bot` is one). */
export interface BoardBot {
  readonly phase: BotPhase;
  readonly loops: ReadonlyMap<
    string,
    {
      readonly symbol: string;
      readonly last: LastRound | null;
      /** The venue's pair id and the wallet, where the loop's key is not the pair id alone. */
      readonly pairId?: string;
      readonly wallet?: string;
      /** What holds its placements back (a throttle, an order-to-trade limit), while something does. */
      readonly held?: string | null;
    }
  >;
  readonly statuses: ReadonlyMap<string, { readonly current: PairStatus }>;
  readonly pnl: ReadonlyMap<string, Pick<PnlTracker, 'position' | 'total' | 'fills'>>;
  readonly risk: Pick<RiskMonitor, 'state' | 'nativeBalanceOf'>;
}

/** What the board reads of each wallet's order engine (`WalletEngine` is one). */
export interface BoardEngine {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  pair(
    pairId: string,
  ):
    | { readonly binding: { readonly chain: 'evm' | 'wasm'; readonly rules: { readonly scales: PairScales } } }
    | undefined;
  liveOrders(pairId: string): readonly StoredOrder[];
  transactionsInFlight(): number;
}

export interface BoardInputs {
  readonly bot: BoardBot;
  readonly engines: readonly BoardEngine[];
  readonly warnings: RecentWarnings;
  /** Where the log goes (shown in the header); null when it goes to standard output only. */
  readonly logPath: string | null;
  readonly now: () => number;
  /** Feeds the obligation columns; without it they show '-'. */
  readonly obligations?: ObligationsProvider | null;
  /** The markout column: each pair's volume-weighted markout at one horizon; without it the column shows '-'. */
  readonly markout?: ((pairId: string) => MarkoutCell | null) | null;
}

/** Our best resting order on one side, with everything we have resting at that price. */
function bestLevel(orders: readonly StoredOrder[], side: 'buy' | 'sell', scales: PairScales): Level | null {
  let price: bigint | null = null;
  let size = 0n;
  for (const o of orders) {
    if (o.side !== side || (o.status !== 'resting' && o.status !== 'partiallyFilled')) continue;
    const left = remainingOf(o);
    if (left <= 0n) continue;
    if (price === null || (side === 'buy' ? o.price > price : o.price < price)) {
      price = o.price;
      size = left;
    } else if (o.price === price) size += left;
  }
  return price === null ? null : { price: priceFromRaw(price, scales), size: quantityFromRaw(size, scales) };
}

function spreadBps(bid: Level | null, ask: Level | null): Decimal | null {
  if (bid === null || ask === null) return null;
  const mid = bid.price.add(ask.price).div(2);
  return mid.isZero() ? null : ask.price.sub(bid.price).div(mid).mul(10_000);
}

export function snapshot(inputs: BoardInputs): BoardModel {
  const { bot, engines } = inputs;
  const nowMs = inputs.now();
  const pairs: PairRow[] = [];
  // A loop goes by its pair id, or `<pair id>@<wallet id>` when several of our wallets quote the pair.
  for (const [pairId, loop] of bot.loops) {
    const venuePair = loop.pairId ?? pairId;
    const engine = engines.find(
      (e) => e.pair(venuePair) !== undefined && (loop.wallet === undefined || e.wallet === loop.wallet),
    );
    const runtime = engine?.pair(venuePair);
    if (engine === undefined || runtime === undefined) continue;
    const scales = runtime.binding.rules.scales;
    const live = engine.liveOrders(venuePair);
    const bid = bestLevel(live, 'buy', scales);
    const ask = bestLevel(live, 'sell', scales);
    const status = bot.statuses.get(venuePair)?.current;
    const pnl = bot.pnl.get(pairId);
    const mark = status?.lastPrice ?? loop.last?.reference ?? status?.staticReferencePrice ?? null;
    pairs.push({
      pairId,
      symbol: loop.symbol,
      chain: runtime.binding.chain,
      bid,
      ask,
      spreadBps: spreadBps(bid, ask),
      fair:
        loop.last?.fair == null
          ? null
          : { value: loop.last.fair.value, source: loop.last.fair.source, guards: [...loop.last.fair.guards.keys()] },
      obligations: inputs.obligations?.status(venuePair, nowMs) ?? null,
      position: pnl?.position ?? new Decimal(0),
      pnl: pnl?.total(mark) ?? new Decimal(0),
      fills: pnl?.fills ?? 0,
      markout: inputs.markout?.(pairId) ?? null,
      state: pairState({
        phase: bot.phase,
        risk: bot.risk.state(pairId, nowMs),
        tradingStatus: status?.tradingStatus ?? null,
        statusReason: status?.statusChangeReason ?? null,
        haltEndMs: status?.haltEndMs ?? null,
        held: loop.held ?? null,
      }),
    });
  }
  const wallets: WalletRow[] = engines.map((e) => ({
    chain: e.chain,
    address: e.wallet,
    native: bot.risk.nativeBalanceOf(e.wallet),
    inFlight: e.transactionsInFlight(),
  }));
  return {
    atMs: nowMs,
    phase: bot.phase,
    logPath: inputs.logPath,
    pairs,
    wallets,
    warnings: inputs.warnings.lines,
    warningCount: inputs.warnings.count,
  };
}
