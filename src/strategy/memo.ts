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

/** A Decimal's sign, exponent and base-10^7 digits: equal values (1 and 1.0) share them, -0 and 0 do not. */
function decimalKey(value: Decimal): string {
  return `${value.s}e${value.e}d${value.d === null ? 'x' : value.d.join('.')}`;
}

function keyOf(value: unknown): string {
  if (value === null) return 'n';
  if (value === undefined) return 'u';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : `${value}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'object':
      break;
    default:
      throw UNKEYABLE;
  }
  if (value instanceof Decimal) return decimalKey(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (const v of value) out += `${keyOf(v)},`;
    return `${out}]`;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) throw UNKEYABLE;
  out = '{';
  const o = value as Record<string, unknown>;
  for (const k in o) out += `${k}:${keyOf(o[k])},`;
  return `${out}}`;
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
  try {
    return keyOf([m, inventory, context, state, gateInputs]);
  } catch (e) {
    if (e === UNKEYABLE) return null;
    throw e;
  }
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
