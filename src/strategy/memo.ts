/**
 * `computeQuotes` with its last call remembered. The registry is pure, so a call whose inputs equal the last
 * one's gives the last one's output: many of a quiet pair's recomputations (a fair-value reading that repeats
 * the last, a book message that changed nothing the strategy reads) ask the same question again. Inputs are
 * compared by value (every Decimal, number, string and flag of the market, inventory, context, state and gate
 * inputs; inputs are immutable, as their types say), the configuration and the pair's rules by identity;
 * anything that is not plain data is never taken as equal. A difference ends the comparison, so a call whose
 * inputs moved costs next to nothing more.
 */
import type { StrategyConfig } from '../core/config/strategy-config.ts';
import { Decimal } from '../core/decimal.ts';
import type { PairRules } from '../core/rules.ts';
import { computeQuotes, type ComputeOutput, type QuoteGate, type StrategyState } from './registry.ts';
import type { Inventory, MarketView, QuoteContext } from './types.ts';

/** Models whose quotes do not depend on the time (`nowMs`, `msUntilClose`); every other kind's do. */
const TIMELESS: ReadonlySet<StrategyConfig['kind']> = new Set(['ladder']);

/** A gate and the values it reads: the comparison covers what the gate decides with. */
export interface KeyedGate {
  readonly gate: QuoteGate;
  readonly inputs: unknown;
}

/** What a call is compared by (the configuration and rules aside). */
export interface QuoteInputs {
  readonly market: MarketView;
  readonly inventory: Inventory;
  readonly context: QuoteContext;
  readonly state: StrategyState;
  /** Whether there is a gate, and what it reads. */
  readonly gate: readonly [boolean, unknown];
}

function sameDigits(a: readonly number[] | null, b: readonly number[] | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Equal as plain data: a Decimal by sign, exponent and digits (1 and 1.0 alike, -0 and 0 not; the same Decimal,
 * immutable, without looking), -0 apart from 0.
 */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number') return Object.is(a, b);
  if (typeof a !== 'object' || a === null) return a === b;
  if (typeof b !== 'object' || b === null) return false;
  if (a instanceof Decimal)
    return a === b || (b instanceof Decimal && Object.is(a.s, b.s) && Object.is(a.e, b.e) && sameDigits(a.d, b.d));
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!Object.hasOwn(y, k) || !same(x[k], y[k])) return false;
  return true;
}

/** Whether two calls of a model of `kind` ask the same question; the time counts only for a model that reads it. */
export function sameQuoteInputs(kind: StrategyConfig['kind'], a: QuoteInputs, b: QuoteInputs): boolean {
  const timeless = TIMELESS.has(kind);
  const { nowMs: aNow, msUntilClose: aClose, ...aMarket } = a.market;
  const { nowMs: bNow, msUntilClose: bClose, ...bMarket } = b.market;
  return (
    (timeless || (Object.is(aNow, bNow) && Object.is(aClose, bClose))) &&
    same(a.context, b.context) &&
    same(a.inventory, b.inventory) &&
    same(aMarket, bMarket) &&
    same(a.state, b.state) &&
    same(a.gate, b.gate)
  );
}

/** One pair's `computeQuotes`: the last output again while the inputs stay the same. */
export class QuoteMemo {
  #last: { config: StrategyConfig; rules: PairRules; inputs: QuoteInputs; output: ComputeOutput } | null = null;
  /** Calls answered from the last output. */
  reused = 0;

  compute(
    config: StrategyConfig,
    market: MarketView,
    inventory: Inventory,
    rules: PairRules,
    context: QuoteContext,
    state: StrategyState,
    gate?: KeyedGate,
  ): ComputeOutput {
    const inputs: QuoteInputs = { market, inventory, context, state, gate: [gate !== undefined, gate?.inputs] };
    const last = this.#last;
    if (
      last !== null &&
      last.config === config &&
      last.rules === rules &&
      sameQuoteInputs(config.kind, last.inputs, inputs)
    ) {
      this.reused++;
      return last.output;
    }
    const output = computeQuotes(config, market, inventory, rules, context, state, gate?.gate);
    this.#last = { config, rules, inputs, output };
    return output;
  }
}
