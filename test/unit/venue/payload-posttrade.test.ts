import { describe, expect, it } from 'vitest';
import { parsePostTrades } from '../../../src/venue/payload/posttrade.ts';
import { parseVenueJson } from '../../../src/venue/payload/json.ts';

const SOURCE = '/posttrade/recent';

const documented = {
  tradingDateTime: '2026-03-02T09:30:01.250Z',
  isin: 'DE000A3E5TR8',
  price: '100.25',
  priceCurrency: 'EUR',
  priceNotation: 'MONE',
  quantity: '2.5',
  venueOfExecution: '21XX',
  publicationDateTime: '2026-03-02T09:30:02Z',
  transactionIdentificationCode: 'tx-1',
  notionalAmount: '250.625',
  notionalCurrency: 'EUR',
};

describe('post-trade items', () => {
  it('reads the documented fields: decimal strings to Decimal, ISO times to epoch ms', () => {
    const { items, rejected } = parsePostTrades({ items: [documented] }, SOURCE);
    expect(rejected).toEqual([]);
    const [t] = items;
    expect(t?.tradedAtMs).toBe(Date.parse('2026-03-02T09:30:01.250Z'));
    expect(t?.publishedAtMs).toBe(Date.parse('2026-03-02T09:30:02Z'));
    expect([t?.price.toFixed(), t?.quantity.toFixed(), t?.notionalAmount?.toFixed()]).toEqual([
      '100.25',
      '2.5',
      '250.625',
    ]);
    expect([t?.isin, t?.priceCurrency, t?.priceNotation, t?.venueOfExecution, t?.transactionId]).toEqual([
      'DE000A3E5TR8',
      'EUR',
      'MONE',
      '21XX',
      'tx-1',
    ]);
  });

  it('reads a top-level array, amounts as JSON numbers by their exact text and times as epoch seconds or milliseconds', () => {
    const body = parseVenueJson(
      '[{"tradingDateTime":1772443801,"price":100.1,"quantity":0.3,"notionalAmount":30.03},' +
        '{"tradingDateTime":1772443801250,"price":12345678.123456789012,"quantity":1}]',
    );
    const { items, rejected } = parsePostTrades(body, SOURCE);
    expect(rejected).toEqual([]);
    expect(items.map((t) => t.tradedAtMs)).toEqual([1772443801000, 1772443801250]);
    // 0.1 + 0.2 style doubles never reach the money: 100.1 and 0.3 arrive as exactly those decimals.
    expect(items[0]?.price.mul(items[0].quantity).toFixed()).toBe('30.03');
    expect(items[1]?.price.toFixed()).toBe('12345678.123456789012');
    expect(items[0]?.isin).toBeUndefined();
  });

  it('sets a malformed item aside with the field and value, and keeps the others', () => {
    const { items, rejected } = parsePostTrades(
      {
        items: [
          { ...documented, price: 'abc' },
          { ...documented, tradingDateTime: 'yesterday' },
          { ...documented, quantity: '0' },
          { ...documented, quantity: undefined },
          'not an object',
          documented,
        ],
      },
      SOURCE,
    );
    expect(items).toHaveLength(1);
    expect(rejected.map((r) => [r.index, r.problems[0]?.field])).toEqual([
      [0, 'items.0.price'],
      [1, 'items.1.tradingDateTime'],
      [2, 'items.2.quantity'],
      [3, 'items.3.quantity'],
      [4, 'items.4'],
    ]);
    expect(rejected[0]?.problems[0]?.value).toBe('abc');
  });

  it('refuses a body that holds no list', () => {
    expect(() => parsePostTrades('nope', SOURCE)).toThrow(/expected an array/);
  });
});
