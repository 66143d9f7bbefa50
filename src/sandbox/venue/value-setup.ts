/**
 * The sandbox's hidden true values and how the world observes them: the value of every pair
 * (`src/sandbox/value/`), sampled on wall time and published as funds' NAVs on the sandbox clock, and the
 * HTTP price feeds that serve it late and noisy. The venue's instrument records read the NAVs from here.
 */
import type { PublishedNav } from '../api/instruments.ts';
import type { VenueState } from '../api/venue-state.ts';
import { SeededRandom } from '../flow/random.ts';
import { buildTrueValues } from '../value/build.ts';
import { PriceFeeds } from '../value/feeds.ts';
import type { TrueValues } from '../value/true-values.ts';
import type { SandboxClock } from './clock.ts';
import { sandboxCalendar, type SandboxConfig } from './options.ts';

/** Decimal places of a published NAV. */
const NAV_PLACES = 6;

export interface ValueParts {
  readonly values: TrueValues;
  readonly feeds: PriceFeeds;
  /** A fund's last published NAV as the instrument record shows it; null for a bond. */
  nav(pairId: string): PublishedNav | null;
  /** Per pair id: the true value now and, for a bond, its yield (percent). */
  describe(): Record<string, { value: string; yield?: string }>;
  start(): void;
  stop(): void;
}

export function buildValueParts(config: SandboxConfig, state: VenueState, clock: SandboxClock): ValueParts {
  const values = buildTrueValues(
    state.pairs,
    {
      seed: config.flow.seed,
      volatility: config.flow.volatility,
      yieldVolatilityBps: config.flow.yieldVolatilityBps,
      reversionPerHour: config.flow.reversionPerHour,
      sampleMs: config.feeds.sampleMs,
      mode: config.trading.mode,
      calendar: sandboxCalendar(config),
    },
    () => clock.nowMs(),
  );
  const feeds = new PriceFeeds({
    pairs: state.pairs.map((p) => ({ id: p.id, symbol: p.symbol })),
    delayMs: config.feeds.delayMs,
    noiseBps: config.feeds.noiseBps,
    random: new SeededRandom(config.flow.seed).fork('feed noise'),
  });
  values.listen((pairId, sample) => feeds.observe(pairId, sample));
  return {
    values,
    feeds,
    nav(pairId) {
      const nav = values.nav(pairId);
      return nav === null ? null : { value: nav.value.toDecimalPlaces(NAV_PLACES).toFixed(), date: nav.date };
    },
    describe() {
      return Object.fromEntries(
        values.pairIds.map((id) => {
          const y = values.yieldPercent(id);
          return [
            id,
            {
              value: values.value(id).toDecimalPlaces(10).toFixed(),
              ...(y === null ? {} : { yield: y.toDecimalPlaces(8).toFixed() }),
            },
          ];
        }),
      );
    },
    start: () => values.start(),
    stop: () => values.stop(),
  };
}
