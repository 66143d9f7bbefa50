/**
 * The fair value of each traded pair whose strategy has a `fairValue` block: its sources built from the block
 * and the pair's facts (the configuration's `pairs[].fairValue`, else the sandbox manifest's), every problem
 * of every pair listed together before anything trades.
 */
import { systemClock } from '../../core/system-clock.ts';
import type { Connection } from './connection.ts';
import { oracleReads } from './oracles.ts';
import type { Setup } from './setup.ts';
import type { SourceReading } from '../../core/fair-value/combine.ts';
import type { PairConfig } from '../../core/config/bot-config.ts';
import type { PairFairValue as PairFacts } from '../../core/config/fair-value-config.ts';
import { readSecret, type ConfigEnvironment } from '../../core/config/load.ts';
import type { Clock } from '../../core/clock.ts';
import { DltError } from '../../core/errors.ts';
import type { TradingPair } from '../../core/pair.ts';
import { buildSources, type FairValueServices, type OracleRead } from '../../engine/fair-value/build.ts';
import type { InstrumentApi } from '../../engine/fair-value/instrument-sources.ts';
import { PairFairValue } from '../../engine/fair-value/pair-fair-value.ts';
import type { StrategyHandle } from '../../engine/loop/pair-loop.ts';
import type { PairBinding } from '../../chains/types.ts';
import type { FairValueSample } from '../../store/fair-value-store.ts';
import type { Logger } from '../../telemetry/logger.ts';

export interface FairValueBuild {
  readonly instruments: InstrumentApi;
  readonly oracle: OracleRead;
  readonly env: ConfigEnvironment;
  /** Facts of sandbox pairs by pair id (the manifest's). */
  readonly manifestFacts: ReadonlyMap<string, PairFacts>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The trading-day report's samples (`report.sampleMs`); none for a command that only reads. */
  readonly samples?: { readonly everyMs: number; write(sample: FairValueSample): void };
  /** A pair's fair-value readings as they come (the recording). */
  readonly onReading?: (pairId: string) => (reading: SourceReading, nowMs: number) => void;
}

/** What every command that builds fair values gives them: the venue's instruments, the oracles, the wall clock. */
export function fairValueBuildOf(
  c: Connection,
  setup: Pick<Setup, 'env'>,
  instruments: InstrumentApi,
  logger: Logger,
): FairValueBuild {
  return {
    instruments,
    oracle: oracleReads(c, logger),
    env: setup.env,
    manifestFacts: c.fairValueFacts,
    clock: systemClock,
    logger,
  };
}

export interface FairValuePairInput {
  readonly pair: TradingPair;
  readonly binding: PairBinding;
  readonly entry: PairConfig | undefined;
  readonly strategy: StrategyHandle;
}

/** The pairs' fair values by pair id; E_CONFIG_INVALID lists every problem of every pair. */
export function buildFairValues(pairs: readonly FairValuePairInput[], b: FairValueBuild): Map<string, PairFairValue> {
  const services: FairValueServices = {
    instruments: b.instruments,
    oracle: b.oracle,
    headers: (headers, where) =>
      Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k, typeof v === 'string' ? v : readSecret(v, `${where}.${k}`, b.env)]),
      ),
    clock: b.clock,
  };
  const out = new Map<string, PairFairValue>();
  const problems: string[] = [];
  for (const { pair, binding, entry, strategy } of pairs) {
    const config = strategy.config.fairValue;
    if (config === undefined) continue;
    const built = buildSources(
      config,
      {
        pairId: binding.pairId,
        symbol: binding.symbol,
        baseSymbol: pair.baseTokenData?.symbol ?? binding.symbol,
        isin: pair.baseTokenData?.isin ?? null,
        chain: binding.chain,
        baseToken: binding.baseToken,
        facts: entry?.fairValue ?? b.manifestFacts.get(binding.pairId),
      },
      services,
    );
    problems.push(...built.problems.map((p) => `${strategy.name}: ${p}`));
    if (built.sources.length === 0)
      problems.push(
        ...built.skipped.map((p) => `${strategy.name}: ${p}`),
        `${strategy.name}: pair ${binding.symbol} has no fair-value source it can read`,
      );
    for (const reason of built.skipped)
      b.logger.warn({ pair: binding.pairId, reason }, `fair-value source left out: ${reason}`);
    out.set(
      binding.pairId,
      new PairFairValue({
        pairId: binding.pairId,
        config,
        sources: built.sources,
        clock: b.clock,
        logger: b.logger.child({ component: 'fair-value', pair: binding.pairId, symbol: binding.symbol }),
        ...(b.samples === undefined ? {} : { samples: b.samples }),
        ...(b.onReading === undefined ? {} : { onReading: b.onReading(binding.pairId) }),
      }),
    );
  }
  if (problems.length > 0)
    throw new DltError('E_CONFIG_INVALID', `fair value: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`, {
      details: { problems },
    });
  return out;
}
