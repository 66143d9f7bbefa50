/**
 * What the replay builds per pair: the pair as the bot runs it (its strategy, limits, fair value from the
 * recorded readings, markouts and attribution), and its book as the recording began.
 */
import type { PairBinding } from '../chains/types.ts';
import type { FairValueConfig } from '../core/config/fair-value-config.ts';
import { Decimal } from '../core/decimal.ts';
import { priceToRaw, quantityToRaw } from '../core/units.ts';
import { PairEvaluation } from '../engine/evaluation/pair-evaluation.ts';
import { PairFairValue } from '../engine/fair-value/pair-fair-value.ts';
import { NO_THROTTLE, Throttle } from '../engine/risk/throttle.ts';
import type { BotPair } from '../engine/loop/bot.ts';
import type { RecordedBook } from '../store/recording-read.ts';
import type { BacktestOptions, BacktestPair } from './replay.ts';
import type { SimChain } from './sim-chain.ts';
import { RecordedSource } from './sim-market.ts';
import type { VirtualClock } from './virtual-clock.ts';

/** A pair's book as its first recorded book message showed it (before any recorded event of the replay). */
export function seedBook(chain: SimChain, b: PairBinding, book: RecordedBook): void {
  const s = b.rules.scales;
  const levels = (json: string) =>
    (JSON.parse(json) as Array<[string, string]>).map(([price, quantity]) => ({
      price: priceToRaw(new Decimal(price), s),
      quantity: quantityToRaw(new Decimal(quantity), s),
    }));
  chain.seed(b.pairId, 'buy', levels(book.buy));
  chain.seed(b.pairId, 'sell', levels(book.sell));
}

export function botPair(
  p: BacktestPair,
  walletId: string,
  o: Pick<BacktestOptions, 'data' | 'store' | 'logger' | 'sampleMs' | 'evaluation'>,
  clock: VirtualClock,
  walletThrottle: Throttle,
): BotPair {
  const id = p.binding.pairId;
  const config: FairValueConfig | undefined = p.strategy().config.fairValue;
  let fairValue: PairFairValue | undefined;
  if (config !== undefined) {
    const rows = o.data.readings.filter((r) => r.pairId === id);
    const kinds = [...new Set(config.sources.map((s) => s.kind))];
    const sources = kinds.flatMap((kind) => {
      const mine = rows.filter((r) => r.source === kind);
      const pollMs = config.sources.find((s) => s.kind === kind)?.pollMs ?? 1_000;
      return mine.length === 0 ? [] : [new RecordedSource(kind, pollMs, mine, clock)];
    });
    fairValue = new PairFairValue({
      pairId: id,
      config,
      sources,
      clock,
      logger: o.logger,
      samples: { everyMs: o.sampleMs, write: (s) => o.store.fairValues.add(s) },
    });
  }
  return {
    binding: p.binding,
    walletId,
    strategy: p.strategy,
    limits: p.limits,
    refreshCost: p.refreshCost,
    throttles: [walletThrottle, new Throttle('pair', () => p.throttle?.pair ?? NO_THROTTLE)],
    ...(fairValue === undefined ? {} : { fairValue }),
    evaluation: new PairEvaluation({
      pairId: id,
      wallet: p.wallet,
      scales: p.binding.rules.scales,
      store: o.store.evaluation,
      horizonsMs: o.evaluation.horizonsMs,
      chainFeeRate: o.evaluation.chainFeeRate,
      clock,
    }),
  };
}
