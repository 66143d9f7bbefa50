/**
 * The wallet trade decoder: the venue's field shapes are not fully published, so amounts come as decimal
 * strings or numbers, dates as ISO strings or epoch numbers, base and quote fields under several spellings;
 * unknown fields are kept, and a malformed item is set aside with its problem while the others are kept.
 */
import { describe, expect, it } from 'vitest';
import { parseVenueJson } from '../../../src/venue/payload/json.ts';
import { parseDate, parseTradePage } from '../../../src/venue/payload/wallet-trades.ts';

const SOURCE = '/wallets/{wallet_address}/trades';

const STRINGS = {
  id: 'tp-1:7',
  sequenceNo: 7,
  transactionDate: '2026-03-02T09:00:00.000Z',
  finalityDate: '2026-03-02T09:00:04.000Z',
  transactionType: 'SELL',
  tradingPairId: 'tp-1',
  baseTokenSymbol: 'BOND26',
  baseTokenQuantity: '1.5',
  quoteTokenSymbol: 'EURe',
  quoteTokenQuantity: '151.95',
  price: '101.3',
  commission: '0.075975',
  orderId: '18446744073709551615',
  transactionHash: '0xabc',
  venueOnlyField: { nested: true },
};

const NUMBERS = {
  id: 42,
  sequenceNo: 8,
  transactionDate: 1_772_442_000,
  finalityDate: null,
  transactionType: 'BUY',
  baseSymbol: 'BOND26',
  baseQuantity: 2,
  quoteSymbol: 'EURe',
  quoteQuantity: 201.2,
  price: 100.6,
  commission: 0.1,
  orderId: 12,
  transactionHash: 'f00d',
};

describe('wallet trades payload', () => {
  it('reads the string shape, keeping unknown fields in raw', () => {
    const page = parseTradePage({ items: [STRINGS], next_cursor: 'c1', total_count: 3 }, SOURCE);
    expect(page).toMatchObject({ received: 1, nextCursor: 'c1', totalCount: 3, rejected: [] });
    const t = page.items[0];
    expect(t).toMatchObject({
      id: 'tp-1:7',
      sequenceNo: 7n,
      orderId: 18_446_744_073_709_551_615n,
      transactionHash: '0xabc',
      transactionDate: Date.parse('2026-03-02T09:00:00Z'),
      finalityDate: Date.parse('2026-03-02T09:00:04Z'),
      transactionType: 'SELL',
      tradingPairId: 'tp-1',
      baseSymbol: 'BOND26',
      quoteSymbol: 'EURe',
    });
    expect(t?.baseQuantity.toFixed()).toBe('1.5');
    expect(t?.quoteQuantity?.toFixed()).toBe('151.95');
    expect(t?.price.toFixed()).toBe('101.3');
    expect(t?.commission?.toFixed()).toBe('0.075975');
    expect(t?.raw.venueOnlyField).toEqual({ nested: true });
  });

  it('reads the number shape: amounts as JSON numbers, dates as epoch seconds, a null finality date as not final', () => {
    const page = parseTradePage(parseVenueJson(JSON.stringify([NUMBERS])), SOURCE);
    expect(page.rejected).toEqual([]);
    const t = page.items[0];
    expect(t).toMatchObject({ id: '42', orderId: 12n, transactionDate: 1_772_442_000_000, baseSymbol: 'BOND26' });
    expect(t?.finalityDate).toBeUndefined();
    expect([t?.baseQuantity, t?.quoteQuantity, t?.price, t?.commission].map((d) => d?.toFixed())).toEqual([
      '2',
      '201.2',
      '100.6',
      '0.1',
    ]);
  });

  it('takes epoch milliseconds as milliseconds and refuses what is no date', () => {
    expect(parseDate(1_772_442_000_123, SOURCE, 'd')).toBe(1_772_442_000_123);
    expect(parseDate(1_772_442_000, SOURCE, 'd')).toBe(1_772_442_000_000);
    expect(() => parseDate('yesterday', SOURCE, 'd')).toThrow(/ISO 8601/);
    expect(() => parseDate(-5, SOURCE, 'd')).toThrow(/ISO 8601/);
  });

  it('sets aside malformed items with the field and value, and keeps the others', () => {
    const page = parseTradePage(
      {
        items: [
          STRINGS,
          { ...STRINGS, price: 'ten' },
          { ...STRINGS, orderId: undefined },
          { ...STRINGS, transactionHash: undefined },
          { ...STRINGS, baseTokenQuantity: '-1' },
          { ...STRINGS, transactionDate: 'soon' },
          'not a trade',
          NUMBERS,
        ],
      },
      SOURCE,
    );
    expect(page.items.map((t) => t.id)).toEqual(['tp-1:7', '42']);
    expect(page.received).toBe(8);
    expect(page.rejected.map((r) => [r.index, r.problems[0]?.field])).toEqual([
      [1, 'items.1.price'],
      [2, 'items.2.orderId'],
      [3, 'items.3.transactionHash'],
      [4, 'items.4.baseTokenQuantity'],
      [5, 'items.5.transactionDate'],
      [6, 'items.6'],
    ]);
  });

  it('refuses an order id that lost digits as a JSON number', () => {
    const page = parseTradePage(
      parseVenueJson(
        '[{"id":"x","orderId":18446744073709551615,"transactionHash":"a","baseTokenQuantity":"1","price":"1"}]',
      ),
      SOURCE,
    );
    expect(page.items).toEqual([]);
    expect(page.rejected[0]?.problems[0]?.message).toMatch(/safe integer/);
  });
});
