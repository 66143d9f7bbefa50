import { describe, expect, it } from 'vitest';
import { DltError } from '../../../src/core/errors.ts';
import { chainKindOf, parseTradingPair, resolvePair, type TradingPair } from '../../../src/core/pair.ts';
import { thrown } from '../../support/errors.ts';
import { loadPairFixture, pairWith } from '../../support/pairs.ts';

function problemsOf(input: unknown): string[] {
  try {
    parseTradingPair(input);
  } catch (e) {
    if (e instanceof DltError && e.code === 'E_PAIR_INVALID') return e.details.problems as string[];
    throw e;
  }
  return [];
}

describe('TradingPair parsing', () => {
  it('accepts a full record and keeps fields the specification does not list', () => {
    const pair = parseTradingPair(loadPairFixture('evm-pair'));
    expect(pair.id).toBe('tp-evm-bond-eure');
    expect((pair as Record<string, unknown>).venueSpecificField).toEqual({ kept: true });
    expect(pair.baseTokenData?.symbol).toBe('BOND26');
  });
  it('lists every missing required field at once', () => {
    const raw = loadPairFixture('evm-pair');
    delete raw.id;
    delete raw.quoteTokenSymbol;
    delete raw.quoteTokenNativeScale;
    const problems = problemsOf(raw);
    expect(problems.some((p) => p.includes('tradingPair.id'))).toBe(true);
    expect(problems.some((p) => p.includes('quoteTokenSymbol'))).toBe(true);
    expect(problems.some((p) => p.includes('quoteTokenNativeScale'))).toBe(true);
  });
  it('checks the formats: scale strings, addresses, decimal strings, ints, ISIN, dates, chain', () => {
    const problems = problemsOf({
      ...loadPairFixture('evm-pair'),
      baseTokenInternalScale: '1e4',
      smartContractOrderBook: '0xZZ',
      minimumOrderValue: 10,
      maximumMatches: -1,
      makerCommission: 1.5,
      baseTokenData: { symbol: 'BOND26', isin: 'DE000A1B2C3X' },
      creationDate: 'yesterday',
      blockChain: 'SOME_CHAIN',
    });
    for (const field of [
      'baseTokenInternalScale',
      'smartContractOrderBook',
      'minimumOrderValue',
      'maximumMatches',
      'makerCommission',
      'baseTokenData.isin',
      'creationDate',
      'blockChain',
    ]) {
      expect(problems.join('\n')).toContain(field);
    }
  });
  it('refuses a zero or negative scale that matches the string pattern', () => {
    expect(() => parseTradingPair({ ...loadPairFixture('evm-pair'), baseTokenNativeScale: '-1' })).toThrow(
      /must be positive/,
    );
  });
  it('accepts int64 fields as strings and refuses unsafe JSON numbers', () => {
    expect(
      parseTradingPair({ ...loadPairFixture('evm-pair'), priceCollarFactor: '9223372036854775807' }).priceCollarFactor,
    ).toBe('9223372036854775807');
    const problems = problemsOf({ ...loadPairFixture('evm-pair'), priceCollarFactor: 2 ** 60 });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.includes('priceCollarFactor'))).toBe(true);
  });
});

describe('pair resolution', () => {
  const evm = pairWith('evm-pair');
  const prefixed = pairWith('evm-pair', { id: 'tp-evm-xbond', baseTokenData: { symbol: 'XBOND26' } });
  const wasm = pairWith('wasm-pair');
  const all: TradingPair[] = [evm, prefixed, wasm];

  it('matches chain, base symbol and quote symbol together; the generic chain value matches _TESTNET', () => {
    expect(resolvePair(all, { blockChain: 'EVM_CHAIN', baseSymbol: 'BOND26', quoteSymbol: 'EURe' }).id).toBe(
      'tp-evm-bond-eure',
    );
    expect(resolvePair(all, { blockChain: 'EVM_CHAIN_TESTNET', baseSymbol: 'XBOND26', quoteSymbol: 'EURe' }).id).toBe(
      'tp-evm-xbond',
    );
    expect(resolvePair(all, { blockChain: 'WASM_CHAIN', baseSymbol: 'FUND1', quoteSymbol: 'EURe' }).id).toBe(
      'tp-wasm-fund-eure',
    );
  });
  it('does not confuse a symbol with one that differs only by a prefix', () => {
    const onlyPrefixed = [prefixed];
    expect(() =>
      resolvePair(onlyPrefixed, { blockChain: 'EVM_CHAIN', baseSymbol: 'BOND26', quoteSymbol: 'EURe' }),
    ).toThrow(expect.objectContaining({ code: 'E_PAIR_NOT_FOUND' }));
  });
  it('a _TESTNET query does not match a production pair', () => {
    const prod = pairWith('evm-pair', { blockChain: 'EVM_CHAIN' });
    expect(() =>
      resolvePair([prod], { blockChain: 'EVM_CHAIN_TESTNET', baseSymbol: 'BOND26', quoteSymbol: 'EURe' }),
    ).toThrow(expect.objectContaining({ code: 'E_PAIR_NOT_FOUND' }));
  });
  it('refuses an ambiguous match and names the candidates', () => {
    const twin = pairWith('evm-pair', { id: 'tp-evm-bond-eure-v2' });
    const e = thrown(() =>
      resolvePair([evm, twin], { blockChain: 'EVM_CHAIN', baseSymbol: 'BOND26', quoteSymbol: 'EURe' }),
    );
    expect(e.code).toBe('E_PAIR_AMBIGUOUS');
    expect(e.details.ids).toEqual(['tp-evm-bond-eure', 'tp-evm-bond-eure-v2']);
  });
  it('knows the chain kind of every blockChain value', () => {
    expect(chainKindOf('EVM_CHAIN')).toBe('evm');
    expect(chainKindOf('EVM_CHAIN_TESTNET')).toBe('evm');
    expect(chainKindOf('WASM_CHAIN')).toBe('wasm');
    expect(chainKindOf('WASM_CHAIN_TESTNET')).toBe('wasm');
  });
});
