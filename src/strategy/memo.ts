/**
 * `computeQuotes` with its last call remembered. The registry is pure, so a call whose inputs equal the last
 * one's gives the last one's output: most of a quiet pair's recomputations (a fair-value reading that repeats
 * the last, a book message about others' levels the quotes do not depend on in value) ask the same question
 * again. Inputs are compared by value (every Decimal, number, string and flag of the market, inventory,
 * context, state and gate inputs), the configuration and the pair's rules by identity; anything the key cannot
 * describe exactly is never skipped.
 */
import type { StrategyConfig } from '../core/config/strategy-config.ts';
import { Decimal } from '../core/decimal.ts';
import type { PairRules } from '../core/rules.ts';
import { computeQuotes, type ComputeOutput, type QuoteGate, type StrategyState } from './registry.ts';
import type { Inventory, MarketView, QuoteContext } from './types.ts';

/** Models whose quotes do not depend on the time (`nowMs`, `msUntilClose`); every other kind's do. */
const TIMELESS: ReadonlySet<StrategyConfig['kind']> = new Set(['ladder']);

/** A gate and the values it reads: the key covers what the gate decides with. */
export interface KeyedGate {
  readonly gate: QuoteGate;
  readonly inputs: unknown;
}

/** Thrown inside the key builder when a value cannot be described exactly. */
const UNKEYABLE = Symbol('unkeyable');

function keyOf(value: unknown, out: string[]): void {
  if (value === null) out.push('n');
  else if (value === undefined) out.push('u');
  else if (typeof value === 'string') out.push(JSON.stringify(value));
  else if (typeof value === 'number') out.push(Object.is(value, -0) ? '-0' : `${value}`);
  else if (typeof value === 'boolean') out.push(value ? 't' : 'f');
  else if (value instanceof Decimal) out.push(value.isZero() && value.isNeg() ? 'd-0' : `d${value.toString()}`);
  else if (Array.isArray(value)) {
    out.push('[');
    for (const v of value) keyOf(v, out);
    out.push(']');
  } else if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    out.push('{');
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      keyOf(v, out);
    }
    out.push('}');
  } else throw UNKEYABLE;
}

/** The inputs of a call as text, or null when one of them cannot be described exactly. */
export function quoteInputKey(
  config: StrategyConfig,
  market: MarketView,
  inventory: Inventory,
  context: QuoteContext,
  state: StrategyState,
  gateInputs: unknown,
): string | null {
  const m = TIMELESS.has(config.kind) ? { ...market, nowMs: null, msUntilClose: null } : market;
  const out: string[] = [];
  try {
    keyOf([m, inventory, context, state, gateInputs], out);
  } catch (e) {
    if (e === UNKEYABLE) return null;
    throw e;
  }
  return out.join(',');
}

/** One pair's `computeQuotes`: the last output again while the inputs stay the same. */
export class QuoteMemo {
  #config: StrategyConfig | null = null;
  #rules: PairRules | null = null;
  #key: string | null = null;
  #output: ComputeOutput | null = null;
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
    const key = quoteInputKey(config, market, inventory, context, state, [gate !== undefined, gate?.inputs]);
    if (key !== null && key === this.#key && config === this.#config && rules === this.#rules && this.#output) {
      this.reused++;
      return this.#output;
    }
    const output = computeQuotes(config, market, inventory, rules, context, state, gate?.gate);
    this.#config = config;
    this.#rules = rules;
    this.#key = key;
    this.#output = key === null ? null : output;
    return output;
  }
}
