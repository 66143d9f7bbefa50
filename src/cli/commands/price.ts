/**
 * `dlt-mm price bond`: clean price, accrued interest, dirty price and yield of a fixed-coupon bond, from a yield or
 * from a clean price. Pure: it reads nothing and connects nowhere. Every bad input is an E_BOND_INPUT (exit 1).
 */
import {
  parseDayCount,
  parseFrequency,
  parsePlainDate,
  priceFromYield,
  yieldFromCleanPrice,
  type BondPrice,
  type BondTerms,
} from '../../core/bond/index.ts';
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { EXIT_OK, type CliIo } from '../io.ts';

export const PRICE_USAGE = `  dlt-mm price bond --coupon <percent> --maturity <YYYY-MM-DD> --issue <YYYY-MM-DD> --frequency <1|2|4|12>
                    --day-count <ACT/ACT-ICMA|30E/360|30/360|ACT/360|ACT/365F> --settlement <YYYY-MM-DD>
                    (--yield <percent> | --clean-price <per 100>) [--json]
                                      a bond's clean and dirty price, accrued interest and yield (ICMA), per 100`;

const COMPOUNDED: Readonly<Record<string, string>> = {
  '1': 'once a year',
  '2': 'twice a year',
  '4': '4 times a year',
  '12': '12 times a year',
};

/** Decimals printed for prices and the yield (percent). */
export const PRINTED_DECIMALS = 10;

const VALUE_OPTIONS = [
  'coupon',
  'maturity',
  'issue',
  'frequency',
  'day-count',
  'settlement',
  'yield',
  'clean-price',
] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];
type Values = Partial<Record<ValueOption, string>>;

function bad(message: string): DltError {
  return new DltError('E_BOND_INPUT', `${message}\n${PRICE_USAGE}`);
}

/** `--name value` or `--name=value` (a value may start with a minus: `--yield -0.5`), and the flag `--json`. */
function parseOptions(args: readonly string[]): { values: Values; json: boolean } {
  const values: Values = {};
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--json') {
      json = true;
      continue;
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const name = VALUE_OPTIONS.find((o) => o === m?.[1]);
    if (m === null || name === undefined) throw bad(`unknown option or argument ${JSON.stringify(arg)}`);
    const value = m[2] ?? args[++i];
    if (value === undefined) throw bad(`--${name} needs a value`);
    if (values[name] !== undefined) throw bad(`--${name} is given twice`);
    values[name] = value;
  }
  return { values, json };
}

function required(values: Values, name: ValueOption): string {
  const value = values[name];
  if (value === undefined) throw bad(`--${name} is required`);
  return value;
}

function decimalOption(values: Values, name: ValueOption): Decimal {
  const text = required(values, name);
  if (!/^-?[0-9]+(?:\.[0-9]+)?$/.test(text) || text.length > 100)
    throw bad(`--${name}: ${JSON.stringify(text)} is not a decimal number`);
  return new Decimal(text);
}

function bondTerms(values: Values): BondTerms {
  return {
    couponPercent: decimalOption(values, 'coupon'),
    issue: parsePlainDate(required(values, 'issue'), '--issue'),
    maturity: parsePlainDate(required(values, 'maturity'), '--maturity'),
    frequency: parseFrequency(required(values, 'frequency')),
    dayCount: parseDayCount(required(values, 'day-count')),
  };
}

/** A decimal string with PRINTED_DECIMALS decimals, rounded half to even, never "-0.000…". */
export function printed(value: Decimal): string {
  const text = value.toFixed(PRINTED_DECIMALS);
  return new Decimal(text).isZero() ? new Decimal(0).toFixed(PRINTED_DECIMALS) : text;
}

function price(values: Values): BondPrice {
  if ((values.yield === undefined) === (values['clean-price'] === undefined))
    throw bad('give exactly one of --yield and --clean-price');
  const terms = bondTerms(values);
  const settlement = parsePlainDate(required(values, 'settlement'), '--settlement');
  return values.yield !== undefined
    ? priceFromYield(terms, settlement, decimalOption(values, 'yield'))
    : yieldFromCleanPrice(terms, settlement, decimalOption(values, 'clean-price'));
}

export function priceCommand(args: string[], io: CliIo): number {
  const [what, ...rest] = args;
  if (what !== 'bond') throw bad(`unknown price command ${JSON.stringify(what ?? '')}`);
  const { values, json } = parseOptions(rest);
  const result = price(values);
  const figures = {
    cleanPrice: printed(result.cleanPrice),
    accruedInterest: printed(result.accruedInterest),
    dirtyPrice: printed(result.dirtyPrice),
    yield: printed(result.yieldPercent),
  };
  if (json) {
    io.stdout(`${JSON.stringify(figures)}\n`);
    return EXIT_OK;
  }
  const width = Math.max(...Object.values(figures).map((f) => f.length));
  const line = (label: string, figure: string, note = '') => `${label.padEnd(18)}${figure.padStart(width)}${note}\n`;
  io.stdout(
    line('clean price', figures.cleanPrice, '  per 100 nominal') +
      line('accrued interest', figures.accruedInterest) +
      line('dirty price', figures.dirtyPrice) +
      line('yield', figures.yield, `  percent, compounded ${COMPOUNDED[required(values, 'frequency')]} (ICMA)`),
  );
  return EXIT_OK;
}
