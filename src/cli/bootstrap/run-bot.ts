/**
 * The bot of `dlt-mm run` and its wallets and pairs, from the trading wallets opened: each pair with its
 * strategy, limits, throttles, fair value, recorder and evaluation, and the pairs the obligation tracker
 * measures.
 */
import type { BotConfig } from '../../core/config/bot-config.ts';
import { Decimal } from '../../core/decimal.ts';
import { systemClock } from '../../core/system-clock.ts';
import type { PairBinding } from '../../chains/types.ts';
import { PairEvaluation } from '../../engine/evaluation/pair-evaluation.ts';
import type { PairFairValue } from '../../engine/fair-value/pair-fair-value.ts';
import { Bot, type BotPair, type BotWallet } from '../../engine/loop/bot.ts';
import type { StrategyCatalog } from '../../engine/loop/strategy-catalog.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import type { ObligationPair, ObligationTracker } from '../../engine/obligations/tracker.ts';
import { resolveLimits } from '../../engine/risk/limits.ts';
import { Throttle, throttleLimits } from '../../engine/risk/throttle.ts';
import type { Store } from '../../store/store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { VenueClients } from '../../market/venue-clients.ts';
import type { Connection } from './connection.ts';
import type { WalletPair } from './pairs.ts';
import type { Recording } from './recording.ts';
import type { Setup } from './setup.ts';
import { tradeChecksOf } from './trade-checks.ts';
import type { TradingWallet } from './wallets.ts';

export interface RunPairsInput {
  readonly config: BotConfig;
  readonly setup: Setup;
  readonly wallets: readonly TradingWallet[];
  readonly catalog: StrategyCatalog;
  readonly fairValues: ReadonlyMap<string, PairFairValue>;
  readonly recording: Recording | null;
  readonly store: Store;
}

export interface RunPairs {
  readonly wallets: BotWallet[];
  readonly pairs: BotPair[];
  readonly obligationPairs: ObligationPair[];
}

/** Markouts and PnL attribution: where fills and marks are kept, the horizons, the chain fee rates. */
function evaluationOf(config: BotConfig, store: Store) {
  return {
    store: store.evaluation,
    horizonsMs: config.evaluation.markoutHorizonsMs,
    chainFeeRate: {
      evm: new Decimal(config.evaluation.chainFeeRate.evm),
      wasm: new Decimal(config.evaluation.chainFeeRate.wasm),
    },
    clock: systemClock,
  };
}

/** One pair of a wallet as the bot trades it. */
function botPairOf(
  input: RunPairsInput,
  wallet: TradingWallet,
  { binding, entry }: WalletPair,
  walletThrottle: Throttle,
  evaluation: ReturnType<typeof evaluationOf>,
): BotPair {
  const { config, setup, catalog, fairValues, recording } = input;
  const strategyPath = setup.strategyPath(entry);
  const limits = resolveLimits(config.risk, entry?.risk);
  return {
    binding,
    walletId: wallet.id,
    strategy: () => catalog.get(strategyPath),
    limits: () => limits,
    refreshCost: new Decimal(entry?.refreshCost ?? '0'),
    throttles: [walletThrottle, new Throttle('pair', () => throttleLimits(config.throttle.pair, entry?.throttle))],
    ...(fairValues.has(binding.pairId) ? { fairValue: fairValues.get(binding.pairId) } : {}),
    ...(recording === null ? {} : { record: recording.record(binding.pairId) }),
    evaluation: new PairEvaluation({
      ...evaluation,
      pairId: binding.pairId,
      wallet: wallet.adapter.wallet,
      scales: binding.rules.scales,
    }),
  };
}

/** What a replay starts from: the book's own configuration and the wallet's balances now. */
async function recordPairStart(recording: Recording, wallet: TradingWallet, binding: PairBinding): Promise<void> {
  const [state, balances] = await Promise.all([
    wallet.adapter.readPairState(binding),
    wallet.adapter.readBalances(binding),
  ]);
  recording.recorder.addPair({
    ...binding,
    wallet: wallet.adapter.wallet,
    binding,
    state: { ...state, marketMaker: wallet.marketMaker },
    balances,
  });
}

export async function runPairsOf(input: RunPairsInput): Promise<RunPairs> {
  const { config, recording } = input;
  const evaluation = evaluationOf(config, input.store);
  const result: RunPairs = { wallets: [], pairs: [], obligationPairs: [] };
  for (const wallet of input.wallets) {
    result.wallets.push({
      id: wallet.id,
      engine: wallet.engine,
      adapter: wallet.adapter,
      marketMaker: wallet.marketMaker,
    });
    const walletThrottle = new Throttle('wallet', () => throttleLimits(config.throttle.wallet));
    for (const pair of wallet.pairs) {
      const { binding, entry } = pair;
      // A pair several of our wallets quote is measured on the first of them.
      if (!result.obligationPairs.some((measured) => measured.binding.pairId === binding.pairId))
        result.obligationPairs.push({
          binding,
          wallet: wallet.adapter.wallet,
          obligations: entry?.obligations ?? (entry === undefined ? (config.sandbox?.obligations ?? null) : null),
        });
      result.pairs.push(botPairOf(input, wallet, pair, walletThrottle, evaluation));
      if (recording !== null) await recordPairStart(recording, wallet, binding);
    }
  }
  return result;
}

export interface BotInput {
  readonly config: BotConfig;
  readonly connection: Connection;
  readonly opened: { readonly wallets: readonly TradingWallet[] };
  readonly run: RunPairs;
  readonly venue: VenueClients;
  readonly recording: Recording | null;
  readonly store: Store;
  readonly catalog: StrategyCatalog;
  readonly obligations: ObligationTracker;
  readonly calendar: CalendarUse;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export function botOf(input: BotInput): Bot {
  const { config, venue, logger, metrics } = input;
  return new Bot({
    wallets: input.run.wallets,
    pairs: input.run.pairs,
    feed: venue.feed,
    rest: input.recording?.tradeInfo(venue.rest) ?? venue.rest,
    calendar: input.calendar,
    timings: {
      tickMs: config.engine.tickMs,
      tradeInfoPollMs: input.connection.venue.config.tradeInfoPollMs,
      phasePollMs: config.engine.phasePollMs,
      balanceMaxAgeMs: config.engine.balanceMaxAgeMs,
      inventoryCheckMs: config.engine.inventoryCheckMs,
      tradeCheckMs: config.engine.tradeCheckMs,
    },
    clock: systemClock,
    logger,
    metrics,
    reloadStrategies: () => input.catalog.reload(),
    obligations: input.obligations,
    // The venue's list of each wallet's trades against the fills the engine attributed from the chain.
    tradeChecks: tradeChecksOf(input.opened.wallets, {
      source: venue.rest,
      store: input.store,
      graceMs: config.engine.tradeCheckGraceMs,
      clock: systemClock,
      logger,
      metrics,
    }),
  });
}
