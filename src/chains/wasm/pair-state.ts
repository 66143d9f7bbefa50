/**
 * A chain B order book's state: `get_config` (scales, commissions, whether it takes tokens at placement) and
 * `get_order_book_phase`. `get_config` is decoded defensively: a struct (map) with the emulator's field names is
 * the example, every field is optional, and what is missing falls back to the REST pair record with a warning.
 */
import { isPhaseOpen } from '../../core/calendar.ts';
import type { PairScales } from '../../core/units.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { OnChainPairState, PairBinding } from '../types.ts';
import { fields, integer, isInteger, Malformed, text, vec, type ScVal } from './scval.ts';

export async function readPairState(
  view: (contract: string, fn: string) => Promise<ScVal>,
  pair: PairBinding,
  logger: Logger,
): Promise<OnChainPairState> {
  const [config, phaseVal] = await Promise.all([
    view(pair.orderBook, 'get_config'),
    view(pair.orderBook, 'get_order_book_phase'),
  ]);
  const phase = phaseOf(phaseVal);
  let f: Map<string, ScVal>;
  try {
    f = fields(config, 'get_config');
  } catch {
    logger.warn(
      { pair: pair.pairId },
      'get_config is not a struct; using the REST pair record for scales and commissions',
    );
    f = new Map();
  }
  const warnings: string[] = [];
  const pick = (names: readonly string[], fallback: bigint, what: string): bigint => {
    for (const n of names) {
      const v = f.get(n);
      if (isInteger(v)) return integer(v, n);
    }
    warnings.push(what);
    return fallback;
  };
  const r = pair.rules;
  const scales: PairScales = {
    baseInternal: pick(['base_scale', 'base_internal_scale'], r.scales.baseInternal, 'base_scale'),
    baseNative: pick(['base_native_scale'], r.scales.baseNative, 'base_native_scale'),
    quoteInternal: pick(['quote_scale', 'quote_internal_scale'], r.scales.quoteInternal, 'quote_scale'),
    quoteNative: pick(['quote_native_scale'], r.scales.quoteNative, 'quote_native_scale'),
  };
  const makerBps = Number(pick(['maker_commission'], BigInt(r.commissions.makerBps), 'maker_commission'));
  const takerBps = Number(pick(['taker_commission'], BigInt(r.commissions.takerBps), 'taker_commission'));
  const marketMakerBps = Number(
    pick(['market_maker_commission'], BigInt(r.commissions.marketMakerBps), 'market_maker_commission'),
  );
  const noPrefund = noPrefundOf(f.get('no_prefund_config'));
  if (noPrefund === null) warnings.push('no_prefund_config (taken as pre-funded)');
  if (warnings.length > 0)
    logger.warn({ pair: pair.pairId, missing: warnings }, 'get_config lacks fields; REST values used');
  return {
    phase,
    open: isPhaseOpen('wasm', typeof phase === 'string' ? phase : null),
    scales,
    makerBps,
    takerBps,
    marketMakerBps,
    prefunded: noPrefund !== true,
  };
}

/** Soroban encodes a unit enum variant as a vector holding its name; a plain symbol or string is accepted too. */
export function phaseOf(v: ScVal): string | number {
  try {
    if (v.type === 16) return text(vec(v, 'phase')[0], 'phase');
    if (isInteger(v)) return Number(integer(v, 'phase'));
    return text(v, 'phase');
  } catch (e) {
    if (e instanceof Malformed) return `unreadable (${e.message})`;
    throw e;
  }
}

/** `no_prefund_config`: a bool, an integer flag, or a struct whose first bool says it; null when unreadable. */
export function noPrefundOf(v: ScVal | undefined): boolean | null {
  if (v === undefined) return null;
  if (v.type === 0) return v.b;
  if (isInteger(v)) return integer(v, 'no_prefund_config') !== 0n;
  if (v.type === 17) {
    for (const val of fields(v, 'no_prefund_config').values()) if (val.type === 0) return val.b;
  }
  return null;
}
