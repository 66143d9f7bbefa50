import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import { isDltError } from '../../../src/core/errors.ts';
import { hasLongNumberRun, JsonNumberText, parseVenueJson } from '../../../src/venue/payload/json.ts';
import { parseOrderBookSnapshot } from '../../../src/venue/payload/order-book.ts';
import { decodeLevel, decodeSide, type PriceLevel } from '../../../src/venue/payload/price-level.ts';
import { thrown } from '../../support/errors.ts';

const text = (levels: readonly PriceLevel[]) =>
  levels.map(
    (l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}${l.orderCount === undefined ? '' : `x${l.orderCount}`}`,
  );

describe('venue JSON keeps every digit of a number', () => {
  it('takes plain JSON.parse when no number can lose digits', () => {
    expect(parseVenueJson('{"limit":0.1,"q":[1.5,2e-7]}')).toEqual({ limit: 0.1, q: [1.5, 2e-7] });
  });
  it('keeps the source text of a long number a double cannot hold, and leaves exact ones as numbers', () => {
    const parsed = parseVenueJson(
      '{"a":123456789.123456789123,"b":1.500000000000000,"c":"12345678901234567","d":9007199254740993}',
    ) as Record<string, unknown>;
    expect(parsed.a).toEqual(new JsonNumberText('123456789.123456789123'));
    expect(parsed.b).toBe(1.5);
    expect(parsed.c).toBe('12345678901234567');
    expect(parsed.d).toEqual(new JsonNumberText('9007199254740993'));
  });
});

describe('price levels', () => {
  it('accept the two-element form [quantity, limit] and named fields, strings or numbers', () => {
    expect(text([decodeLevel(['2.5', '101.25'], 's', 'buy.0')])).toEqual(['2.5@101.25']);
    expect(text([decodeLevel({ limit: '101.25', quantity: '2.5' }, 's', 'buy.0')])).toEqual(['2.5@101.25']);
    // The venue SDK's orderbook entry carries an orderType beside quantity and limit.
    expect(text([decodeLevel({ orderType: 'LIMIT', quantity: '2.5', limit: '101.25' }, 's', 'buy.0')])).toEqual([
      '2.5@101.25',
    ]);
    expect(text([decodeLevel({ limit: 0.1, totalQuantity: 3, orderCount: 2 }, 's', 'buy.0')])).toEqual(['3@0.1x2']);
    const exact = decodeLevel({ limit: new JsonNumberText('0.123456789012345678'), totalQuantity: 1 }, 's', 'x');
    expect(exact.limit.eq(new Decimal('0.123456789012345678'))).toBe(true);
  });

  it('a bad level is an error naming the field and the value', () => {
    const e = thrown(() => decodeLevel({ limit: '1,5', quantity: '2' }, '/tradingpairs/{id}/pricelevels', 'sell.3'));
    expect(e.code).toBe('E_PAYLOAD_MALFORMED');
    expect(e.details.problems).toEqual([
      { field: 'sell.3.limit', value: '1,5', message: 'expected a decimal string or a JSON number' },
    ]);
    expect(e.message).toContain('sell.3.limit');
    expect(e.message).toContain('"1,5"');
    for (const bad of [
      ['1'],
      { limit: '-1', quantity: '1' },
      { limit: '1', quantity: '1', orderCount: 1.5 },
      { limit: '1' },
      'x',
      { limit: Number.NaN, quantity: 1 },
    ]) {
      expect(
        isDltError(
          thrown(() => decodeLevel(bad, 's', 'f')),
          'E_PAYLOAD_MALFORMED',
        ),
      ).toBe(true);
    }
  });

  it('a side out of order is sorted best first: buys descending, sells ascending', () => {
    const raw = [
      ['1', '99'],
      ['1', '101'],
      ['1', '100'],
    ];
    expect(decodeSide(raw, 'buy', 's', 'buy').map((l) => l.limit.toFixed())).toEqual(['101', '100', '99']);
    expect(decodeSide(raw, 'sell', 's', 'sell').map((l) => l.limit.toFixed())).toEqual(['99', '100', '101']);
  });
});

describe('order book snapshot', () => {
  it('decodes the envelope; an empty book is normal', () => {
    const book = parseOrderBookSnapshot(
      { tradingPairId: 'p1', buy: [['1.5', '100']], sell: [], extra: true },
      's',
      'p1',
    );
    expect(book.tradingPairId).toBe('p1');
    expect(text(book.buy)).toEqual(['1.5@100']);
    expect(book.sell).toEqual([]);
  });

  it("is all or nothing: one bad level, a missing side or another pair's book is malformed", () => {
    const bad = thrown(() =>
      parseOrderBookSnapshot(
        {
          tradingPairId: 'p1',
          buy: [
            ['1', '100'],
            ['x', '99'],
          ],
          sell: [],
        },
        's',
        'p1',
      ),
    );
    expect(bad.details.problems).toEqual([
      { field: 'buy.1.0', value: 'x', message: 'expected a decimal string or a JSON number' },
    ]);
    expect(thrown(() => parseOrderBookSnapshot({ tradingPairId: 'p1', buy: [] }, 's', 'p1')).details.problems).toEqual([
      { field: 'sell', value: undefined, message: 'expected an array of price levels' },
    ]);
    expect(
      thrown(() => parseOrderBookSnapshot({ tradingPairId: 'p2', buy: [], sell: [] }, 's', 'p1')).message,
    ).toContain('expected the book of p1');
  });
});

describe('the long-number scan that picks the exact path', () => {
  it('finds a run of 16 digits and dots exactly where a plain regex does (property)', () => {
    const piece = fc.constantFrom('1', '23', '.', '4567890', ',', '"', 'e', '{"limit":', '0.05', '12345678', ' ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        const text = parts.join('');
        expect(hasLongNumberRun(text)).toBe(/[0-9.]{16}/.test(text));
      }),
      { numRuns: 2_000 },
    );
  });
});
