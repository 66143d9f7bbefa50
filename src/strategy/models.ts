/**
 * The quote models behind the registry, each from its strategy configuration to raw quotes around a centre.
 * Raw quotes go through conformance afterwards; a model only decides where it would like to be.
 */
import type { AvellanedaStoikovStrategyConfig, LadderStrategyConfig } from '../core/config/strategy-config.ts';
import { modelSqrt } from '../core/decimal-math.ts';
import { Decimal } from '../core/decimal.ts';
import { avellanedaStoikovQuotes } from './avellaneda-stoikov.ts';
import { ladderQuotes } from './ladder.ts';
import { show } from './show.ts';
import { applyInventoryBounds, inventoryDeviation, skewedCentre, skewedSizes, type SkewParams } from './skew.ts';
import type { DesiredQuote, Inventory, MarketView, QuoteReason, ReferencePrice } from './types.ts';
import { initialVolatilityState, updateVolatility, variancePerSecond, type VolatilityState } from './volatility.ts';

/** What a model keeps between calls; plain JSON so that the engine can store it. */
export interface StrategyState {
  readonly volatility?: VolatilityState;
}

export interface ModelInput {
  readonly reference: ReferencePrice;
  readonly market: MarketView;
  readonly inventory: Inventory;
}

export interface ModelOutput {
  readonly quotes: DesiredQuote[];
  /** The price the quotes are built around (skewed reference, reservation price): the fee floor's centre. */
  readonly centre: Decimal;
  readonly reasons: QuoteReason[];
  readonly diagnostics: Record<string, string>;
  readonly state: StrategyState;
}

export type Model<C> = (config: C, input: ModelInput, state: StrategyState) => ModelOutput;

/** A configuration's ladder sizes as Decimals, parsed once per configuration. */
const parsedSizes = new WeakMap<readonly string[], readonly Decimal[]>();
function sizesOf(sizes: readonly string[]): readonly Decimal[] {
  let parsed = parsedSizes.get(sizes);
  if (parsed === undefined) {
    parsed = sizes.map((s) => new Decimal(s));
    parsedSizes.set(sizes, parsed);
  }
  return parsed;
}

export function ladderModel(config: LadderStrategyConfig, input: ModelInput, state: StrategyState): ModelOutput {
  const l = config.ladder;
  const params = {
    levels: l.levels,
    spacingBps: l.spacingBps,
    sizes: sizesOf(l.sizes),
    sizeUnit: l.sizeUnit,
    bidSpreadBps: l.bidSpreadBps,
    askSpreadBps: l.askSpreadBps,
  };
  const reference = input.reference.price;
  if (config.skew === undefined) {
    return {
      quotes: ladderQuotes(reference, params),
      centre: reference,
      reasons: [],
      diagnostics: { centre: show(reference) },
      state,
    };
  }
  const skew: SkewParams = {
    targetInventory: new Decimal(config.skew.targetInventory),
    maxInventory: new Decimal(config.skew.maxInventory),
    priceSkewBps: config.skew.priceSkewBps,
    sizeSkew: config.skew.sizeSkew,
  };
  const deviation = inventoryDeviation(input.inventory, skew.targetInventory);
  const centre = skewedCentre(reference, deviation, skew);
  const sized = skewedSizes(ladderQuotes(centre, params), deviation, skew);
  const bounded = applyInventoryBounds(sized, deviation, skew.maxInventory);
  return {
    quotes: bounded.quotes,
    centre,
    reasons: bounded.reasons,
    diagnostics: { centre: show(centre), inventoryDeviation: show(deviation) },
    state,
  };
}

export function avellanedaStoikovModel(
  config: AvellanedaStoikovStrategyConfig,
  input: ModelInput,
  state: StrategyState,
): ModelOutput {
  const p = config.avellanedaStoikov;
  const volatility = updateVolatility(
    state.volatility ?? initialVolatilityState(p.volatility),
    input.reference.price,
    input.market.nowMs,
    p.volatility,
  );
  const variance = variancePerSecond(volatility, p.volatility);
  const diagnostics: Record<string, string> = {
    sigma: show(modelSqrt(variance)),
    volatilitySamples: String(volatility.samples),
  };
  const next = { ...state, volatility };
  const reference = input.reference.price;
  const horizonMs = p.horizonMs ?? input.market.msUntilClose;
  if (horizonMs === null) {
    return {
      quotes: [],
      centre: reference,
      reasons: [
        {
          side: null,
          level: null,
          rule: 'no-horizon',
          action: 'none',
          detail: 'time to the close is unknown and no horizonMs is configured',
        },
      ],
      diagnostics,
      state: next,
    };
  }
  const target = new Decimal(p.targetInventory);
  const baseInventory = input.inventory.base.free.add(input.inventory.base.locked);
  const model = avellanedaStoikovQuotes(
    { reference, variance, horizonSeconds: new Decimal(Math.max(0, horizonMs)).div(1000), baseInventory },
    {
      riskAversion: p.riskAversion,
      orderBookLiquidity: p.orderBookLiquidity,
      size: new Decimal(p.size),
      targetInventory: target,
    },
  );
  const bounded = applyInventoryBounds(model.quotes, baseInventory.sub(target), new Decimal(p.maxInventory));
  return {
    quotes: bounded.quotes,
    centre: model.reservation,
    reasons: bounded.reasons,
    diagnostics: {
      ...diagnostics,
      reservation: show(model.reservation),
      spread: show(model.spread),
      inventoryLots: show(model.q),
      horizonSeconds: String(Math.max(0, horizonMs) / 1000),
    },
    state: next,
  };
}
