/**
 * Tick sizes. REGULATORY is the EU table of Commission Delegated Regulation (EU) 2017/588 by liquidity band;
 * GRANULAR is "any price representable at the quote internal scale"; liquidity band 7 is the granular tick mode
 * of seven-decimal prices (0.9999999); the operator can override any of them per pair with a fixed tick or a
 * table of their own.
 */
import { Decimal, formatDecimal } from './decimal.ts';
import type { RuleViolation } from './rule-violation.ts';

/** A price range starts at `from` (inclusive) and runs to the next row's `from` (exclusive). */
export interface TickRow {
  readonly from: Decimal;
  readonly tick: Decimal;
}

const REGULATORY_ROWS: ReadonlyArray<readonly [string, readonly [string, string, string, string, string, string]]> = [
  ['0', ['0.0005', '0.0002', '0.0001', '0.0001', '0.0001', '0.0001']],
  ['0.1', ['0.001', '0.0005', '0.0002', '0.0001', '0.0001', '0.0001']],
  ['0.2', ['0.002', '0.001', '0.0005', '0.0002', '0.0001', '0.0001']],
  ['0.5', ['0.005', '0.002', '0.001', '0.0005', '0.0002', '0.0001']],
  ['1', ['0.01', '0.005', '0.002', '0.001', '0.0005', '0.0002']],
  ['2', ['0.02', '0.01', '0.005', '0.002', '0.001', '0.0005']],
  ['5', ['0.05', '0.02', '0.01', '0.005', '0.002', '0.001']],
  ['10', ['0.1', '0.05', '0.02', '0.01', '0.005', '0.002']],
  ['20', ['0.2', '0.1', '0.05', '0.02', '0.01', '0.005']],
  ['50', ['0.5', '0.2', '0.1', '0.05', '0.02', '0.01']],
  ['100', ['1', '0.5', '0.2', '0.1', '0.05', '0.02']],
  ['200', ['2', '1', '0.5', '0.2', '0.1', '0.05']],
  ['500', ['5', '2', '1', '0.5', '0.2', '0.1']],
  ['1000', ['10', '5', '2', '1', '0.5', '0.2']],
  ['2000', ['20', '10', '5', '2', '1', '0.5']],
  ['5000', ['50', '20', '10', '5', '2', '1']],
  ['10000', ['100', '50', '20', '10', '5', '2']],
  ['20000', ['200', '100', '50', '20', '10', '5']],
  ['50000', ['500', '200', '100', '50', '20', '10']],
];

export type LiquidityBand = 1 | 2 | 3 | 4 | 5 | 6;

export function regulatoryTable(band: LiquidityBand): TickRow[] {
  return REGULATORY_ROWS.map(([from, ticks]) => ({
    from: new Decimal(from),
    tick: new Decimal(ticks[band - 1] as string),
  }));
}

export type TickRules =
  | { readonly kind: 'table'; readonly source: string; readonly rows: readonly TickRow[] }
  | { readonly kind: 'fixed'; readonly source: string; readonly tick: Decimal };

/** A column of the regulatory table (1..6). */
export function isLiquidityBand(value: unknown): value is LiquidityBand {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 6;
}

/** The liquidity band of the granular tick mode: prices of seven decimal places, whatever `tickSizeMode` says. */
export const GRANULAR_BAND = 7;
export const GRANULAR_DECIMALS = 7;
const GRANULAR_UNITS = 10n ** BigInt(GRANULAR_DECIMALS);

function gcd(a: bigint, b: bigint): bigint {
  return b === 0n ? a : gcd(b, a % b);
}

/**
 * The tick of band 7 at a quote internal scale: the smallest price both of seven decimals and representable at
 * the scale, 1 / gcd(10^7, scale). That is 0.0000001 when the scale represents seven decimals (10^7, 10^8, ...)
 * and one unit of the scale when the scale is coarser (10^4: 0.0001); `source` says which.
 */
export function granularBandTick(quoteInternal: bigint): { readonly tick: Decimal; readonly source: string } {
  if (quoteInternal <= 0n) throw new RangeError(`quote internal scale ${quoteInternal} is not positive`);
  const units = gcd(GRANULAR_UNITS, quoteInternal);
  const tick = new Decimal(1).div(units.toString());
  const what =
    units === GRANULAR_UNITS
      ? `${GRANULAR_DECIMALS} decimal places`
      : units === quoteInternal
        ? `one unit of the quote internal scale ${quoteInternal}, coarser than ${GRANULAR_DECIMALS} decimal places`
        : `${formatDecimal(tick)}, the finest ${GRANULAR_DECIMALS}-decimal tick the quote internal scale ${quoteInternal} represents`;
  return { tick, source: `band ${GRANULAR_BAND} (granular: ${what})` };
}

/**
 * What is known of each table: whether its rows ascend by `from` (the regulatory tables do; an operator's table
 * should), and the row the last price looked up fell in. A pair's prices stay within a row or two for long
 * stretches and the same price is often looked up several times in a row (snapping, then checking), so the last
 * row is tried first: the same Decimal answers without a comparison, a price in that row with two.
 */
interface TableState {
  readonly ascending: boolean;
  lastPrice: Decimal | null;
  lastRow: number;
}
const tables = new WeakMap<readonly TickRow[], TableState>();

function stateOf(rows: readonly TickRow[]): TableState {
  let state = tables.get(rows);
  if (state === undefined) {
    const ascending = rows.every((r, i) => i === 0 || r.from.gt((rows[i - 1] as TickRow).from));
    state = { ascending, lastPrice: null, lastRow: 0 };
    tables.set(rows, state);
  }
  return state;
}

/** Whether `price` falls in row `i` of an ascending table (the first row also covers prices below it). */
function inRow(price: Decimal, rows: readonly TickRow[], i: number): boolean {
  const next = rows[i + 1];
  return (i === 0 || price.gte((rows[i] as TickRow).from)) && (next === undefined || price.lt(next.from));
}

/** The tick in force at `price` (price > 0). */
export function tickAt(price: Decimal, rules: TickRules): Decimal {
  if (rules.kind === 'fixed') return rules.tick;
  const rows = rules.rows;
  if (rows.length === 0) throw new RangeError('tick table is empty');
  const state = stateOf(rows);
  if (!state.ascending) {
    // Rows out of order: the first row, then each row in turn while the price reaches it.
    let tick = (rows[0] as TickRow).tick;
    for (const row of rows) {
      if (price.gte(row.from)) tick = row.tick;
      else break;
    }
    return tick;
  }
  if (price === state.lastPrice || inRow(price, rows, state.lastRow)) {
    state.lastPrice = price;
    return (rows[state.lastRow] as TickRow).tick;
  }
  // Binary search for the last row whose start the price reaches (the first row also covers prices below it).
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (price.gte((rows[mid] as TickRow).from)) lo = mid;
    else hi = mid - 1;
  }
  state.lastPrice = price;
  state.lastRow = lo;
  return (rows[lo] as TickRow).tick;
}

export function isOnTick(price: Decimal, rules: TickRules): boolean {
  return price.mod(tickAt(price, rules)).isZero();
}

export function checkTick(price: Decimal, rules: TickRules): RuleViolation | null {
  const tick = tickAt(price, rules);
  if (price.mod(tick).isZero()) return null;
  return {
    rule: 'tick',
    code: 'E_RULE_TICK',
    message: `price ${formatDecimal(price)} is not a multiple of the tick ${formatDecimal(tick)} (${rules.source})`,
    numbers: {
      price: formatDecimal(price),
      tick: formatDecimal(tick),
      below: formatDecimal(price.div(tick).floor().mul(tick)),
      above: formatDecimal(price.div(tick).ceil().mul(tick)),
    },
  };
}

/**
 * Snaps a price onto the grid towards the passive side: a buy moves down, a sell moves up, so that snapping
 * never makes a quote more aggressive. A price already on tick is returned unchanged.
 */
export function snapToTick(price: Decimal, side: 'buy' | 'sell', rules: TickRules): Decimal {
  let current = price;
  // Moving up can land on a band boundary with a coarser tick; a custom table may then need another round.
  for (let round = 0; round < 16; round++) {
    const tick = tickAt(current, rules);
    if (current.mod(tick).isZero()) return current;
    const units = current.div(tick);
    current = (side === 'buy' ? units.floor() : units.ceil()).mul(tick);
  }
  throw new RangeError(`cannot snap ${formatDecimal(price)} onto the tick grid (${rules.source})`);
}

/** The tick that applies just below `price` (the step used when moving down from an on-tick price). */
function tickBelow(price: Decimal, rules: TickRules): Decimal {
  if (rules.kind === 'fixed') return rules.tick;
  let tick = rules.rows[0]?.tick;
  for (const row of rules.rows) {
    if (price.gt(row.from)) tick = row.tick;
    else break;
  }
  if (tick === undefined) throw new RangeError('tick table is empty');
  return tick;
}

/** The next price on the grid above an on-tick price. */
export function tickUp(price: Decimal, rules: TickRules): Decimal {
  return price.add(tickAt(price, rules));
}

/** The next price on the grid below an on-tick price (zero or less means there is none). */
export function tickDown(price: Decimal, rules: TickRules): Decimal {
  return price.sub(tickBelow(price, rules));
}
