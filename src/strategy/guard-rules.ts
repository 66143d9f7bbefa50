/**
 * What the obligation guard checks quotes with: the terms compiled against a pair's scales, and quotes as the
 * integers the chain carries, each kept while what it was made from stays the same.
 */
import { Decimal } from '../core/decimal.ts';
import { ObligationRules, type BookQuote } from '../core/obligations.ts';
import type { PairRules } from '../core/rules.ts';
import { priceToRaw, quantityToRaw } from '../core/units.ts';
import type { GuardTerms, Side } from './types.ts';

/**
 * The terms compiled for a pair's scales (all the rules read of the pair), once for each terms and scales:
 * every round checks them several times, and a round's pair rules are a new object whenever they carry the
 * market's static reference price, while the scales stay the same object.
 */
const compiled = new WeakMap<PairRules['scales'], Map<string, ObligationRules>>();
/** The rules last compiled from each terms object (terms are immutable; the round's are the same object). */
const byObject = new WeakMap<GuardTerms, { scales: PairRules['scales']; rules: ObligationRules }>();

export function rulesOf(terms: GuardTerms, pair: PairRules): ObligationRules {
  const last = byObject.get(terms);
  if (last !== undefined && last.scales === pair.scales) return last.rules;
  const rules = compiledRules(terms, pair.scales);
  byObject.set(terms, { scales: pair.scales, rules });
  return rules;
}

function compiledRules(terms: GuardTerms, scales: PairRules['scales']): ObligationRules {
  let byTerms = compiled.get(scales);
  if (byTerms === undefined) {
    byTerms = new Map();
    compiled.set(scales, byTerms);
  }
  const { maxSpread: s, minSize: m } = terms;
  const key = `${s.unit}:${s.value.toString()}|${m.unit}:${m.value.toString()}|${terms.maxSizeRatio}`;
  let rules = byTerms.get(key);
  if (rules === undefined) {
    rules = new ObligationRules({ ...terms, target: 1, stressedSpreadMultiplier: new Decimal(1) }, scales);
    byTerms.set(key, rules);
  }
  return rules;
}

type Quoted = { readonly side: Side; readonly price: Decimal; readonly quantity: Decimal };

/**
 * Each quote's integers, with the values they were worked out from: a round checks the same quotes against
 * the terms several times (after a fill on either side, before and after the diff), and a quote's side, price
 * and quantity are immutable values, so the same ones give the same integers.
 */
const raws = new WeakMap<Quoted, { from: Quoted; scales: PairRules['scales']; raw: BookQuote }>();

export function raw(q: Quoted, pair: PairRules): BookQuote {
  const known = raws.get(q);
  if (
    known !== undefined &&
    known.scales === pair.scales &&
    known.from.side === q.side &&
    known.from.price === q.price &&
    known.from.quantity === q.quantity
  )
    return known.raw;
  const found = {
    side: q.side,
    price: priceToRaw(q.price, pair.scales),
    quantity: quantityToRaw(q.quantity, pair.scales),
  };
  raws.set(q, { from: { side: q.side, price: q.price, quantity: q.quantity }, scales: pair.scales, raw: found });
  return found;
}
