import { describe, expect, it } from 'vitest';
import { parsePlainDate, priceFromYield, yieldFromCleanPrice, type BondTerms } from '../../../src/core/bond/index.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { runCli } from '../../support/cli-io.ts';

function refuse(): never {
  throw new Error('price bond touched a file');
}

/** Runs dlt-mm with an io that refuses files: `price bond` reads and writes nothing. */
function run(argv: string[]) {
  return runCli(argv, { readFile: refuse, writeFile: refuse, env: {}, cwd: '/nonexistent' });
}

// 5% semi-annual ACT/ACT-ICMA, issued 10 March 2020 (a short first period), maturing 15 June 2030.
const BOND = '--coupon 5 --issue 2020-03-10 --maturity 2030-06-15 --frequency 2 --day-count ACT/ACT-ICMA'.split(' ');
const terms: BondTerms = {
  couponPercent: new Decimal(5),
  issue: parsePlainDate('2020-03-10', 'issue'),
  maturity: parsePlainDate('2030-06-15', 'maturity'),
  frequency: 2,
  dayCount: 'ACT/ACT-ICMA',
};
const settlement = parsePlainDate('2024-11-04', 'settlement');
const args = (...more: string[]) => ['price', 'bond', ...BOND, '--settlement', '2024-11-04', ...more];
const tenDecimals = (d: Decimal) => d.toFixed(10);

describe('dlt-mm price bond', () => {
  it('prints clean price, accrued interest, dirty price and yield from a yield, as the core computes them', async () => {
    const expected = priceFromYield(terms, settlement, new Decimal('4.25'));
    const r = await run(args('--yield', '4.25'));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const figure = (label: string) => new RegExp(`^${label} +(\\S+)`, 'm').exec(r.stdout)?.[1];
    expect(figure('clean price')).toBe(tenDecimals(expected.cleanPrice));
    expect(figure('accrued interest')).toBe(tenDecimals(expected.accruedInterest));
    expect(figure('dirty price')).toBe(tenDecimals(expected.dirtyPrice));
    expect(figure('yield')).toBe('4.2500000000');
    expect(r.stdout).toMatch(/percent, compounded twice a year \(ICMA\)/);
  });

  it('--json prints exactly the four figures as decimal strings with 10 decimals', async () => {
    const expected = priceFromYield(terms, settlement, new Decimal('4.25'));
    const r = await run(args('--yield', '4.25', '--json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      cleanPrice: tenDecimals(expected.cleanPrice),
      accruedInterest: tenDecimals(expected.accruedInterest),
      dirtyPrice: tenDecimals(expected.dirtyPrice),
      yield: '4.2500000000',
    });
  });

  it('solves the yield of a clean price', async () => {
    const expected = yieldFromCleanPrice(terms, settlement, new Decimal('97.125'));
    const r = await run(args('--clean-price', '97.125', '--json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      cleanPrice: '97.1250000000',
      accruedInterest: tenDecimals(expected.accruedInterest),
      dirtyPrice: tenDecimals(expected.dirtyPrice),
      yield: tenDecimals(expected.yieldPercent),
    });
  });

  it('takes a negative yield as the next argument or after =', async () => {
    const expected = priceFromYield(terms, settlement, new Decimal('-0.5'));
    const separate = await run(args('--yield', '-0.5', '--json'));
    const joined = await run(args('--yield=-0.5', '--json'));
    expect(separate.code).toBe(0);
    expect(JSON.parse(separate.stdout).cleanPrice).toBe(tenDecimals(expected.cleanPrice));
    expect(joined.stdout).toBe(separate.stdout);
  });

  it('never prints a negative zero: a yield of -1.8e-12 percent is 0.0000000000', async () => {
    const zero = ['--coupon', '0', ...BOND.slice(2)];
    const argv = ['price', 'bond', ...zero, '--settlement', '2024-11-04', '--clean-price', '100.00000000001', '--json'];
    const r = await run(argv);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).yield).toBe('0.0000000000');
  });

  it('exits 1 with the reason for any bad input', async () => {
    const cases: [string[], RegExp][] = [
      [args('--yield', '4', '--clean-price', '99'), /exactly one of --yield and --clean-price/],
      [args(), /exactly one of --yield and --clean-price/],
      [['price', 'bond', ...BOND, '--yield', '4'], /--settlement is required/],
      [['price', 'bond', ...BOND.slice(2), '--settlement', '2024-11-04', '--yield', '4'], /--coupon is required/],
      [args('--yield', '4', '--spread', '1'), /unknown option or argument "--spread"/],
      [args('--yield', '4', 'extra'), /unknown option or argument "extra"/],
      [args('--yield'), /--yield needs a value/],
      [args('--yield', '4', '--yield', '5'), /--yield is given twice/],
      [args('--yield', 'four'), /--yield: "four" is not a decimal number/],
      [args('--clean-price', '1e2'), /--clean-price: "1e2" is not a decimal number/],
      [
        ['price', 'bond', ...BOND, '--settlement', '2024-02-30', '--yield', '4'],
        /--settlement: "2024-02-30" is not a date/,
      ],
      [['price', 'bond', ...BOND, '--settlement', '2030-06-15', '--yield', '4'], /not before maturity 2030-06-15/],
      [['price', 'bond', ...BOND, '--settlement', '2020-01-01', '--yield', '4'], /before the issue date 2020-03-10/],
      [args('--yield', '4', '--day-count', 'ACT/ACT'), /--day-count is given twice/],
      [
        ['price', 'bond', ...BOND.slice(0, 8), '--day-count', 'ACT/ACT', '--settlement', '2024-11-04', '--yield', '4'],
        /day count "ACT\/ACT" is not one of/,
      ],
      [
        [
          'price',
          'bond',
          ...BOND.slice(0, 6),
          '--frequency',
          '3',
          ...BOND.slice(8),
          '--settlement',
          '2024-11-04',
          '--yield',
          '4',
        ],
        /frequency "3" is not one of 1, 2, 4, 12/,
      ],
      [args('--yield', '-250'), /not above -200%/],
      [args('--clean-price', '-5'), /no yield fits/],
      [['price', 'stock'], /unknown price command "stock"/],
    ];
    for (const [argv, reason] of cases) {
      const r = await run(argv);
      expect({ argv: argv.join(' '), code: r.code, stdout: r.stdout }).toEqual({
        argv: argv.join(' '),
        code: 1,
        stdout: '',
      });
      expect(r.stderr).toMatch(/^error E_BOND_INPUT: /);
      expect(r.stderr).toMatch(reason);
    }
  });

  it('is listed in the usage', async () => {
    const r = await run(['help']);
    expect(r.stdout).toContain('dlt-mm price bond --coupon <percent>');
  });
});
