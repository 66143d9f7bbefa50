import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { othersBook } from '../../../src/strategy/book.ts';
import { priceFrom, referencePrice } from '../../../src/strategy/reference-price.ts';
import { d, decimalBetween, levels, liveOrder } from '../../support/strategy/builders.ts';

const book = othersBook({ bids: levels(['99', '3'], ['98', '10']), asks: levels(['101', '1'], ['102', '4']) }, []);
const inputs = { book, lastPrice: d('100.4'), staticReferencePrice: d('97'), fair: null };

describe('reference price sources', () => {
  it('mid is halfway between the best bid and ask', () => {
    expect(priceFrom('mid', inputs)?.toFixed()).toBe('100');
  });
  it('microprice weights each side by the size opposite: (99 * 1 + 101 * 3) / 4', () => {
    expect(priceFrom('microprice', inputs)?.toFixed()).toBe('100.5');
  });
  it('fair is the fair value given, when it is positive; otherwise the next source', () => {
    expect(priceFrom('fair', { ...inputs, fair: d('100.8') })?.toFixed()).toBe('100.8');
    expect(priceFrom('fair', inputs)).toBeNull();
    expect(referencePrice(['fair', 'mid'], { ...inputs, fair: d('0') })).toEqual({ price: d('100'), source: 'mid' });
    expect(referencePrice(['fair', 'mid'], { ...inputs, fair: d('100.8') })).toEqual({
      price: d('100.8'),
      source: 'fair',
    });
  });
  it('last and static are the prices given', () => {
    expect(priceFrom('last', inputs)?.toFixed()).toBe('100.4');
    expect(priceFrom('static', inputs)?.toFixed()).toBe('97');
  });
  it('microprice lies between the best bid and ask, nearer the side with less size', () => {
    fc.assert(
      fc.property(
        decimalBetween(1, 500, 2),
        decimalBetween(0.01, 5, 2),
        decimalBetween(0.01, 50, 2),
        decimalBetween(0.01, 50, 2),
        (bid, gap, bq, aq) => {
          const ask = bid.add(gap);
          const b = othersBook({ bids: [{ price: bid, quantity: bq }], asks: [{ price: ask, quantity: aq }] }, []);
          const micro = priceFrom('microprice', { book: b, lastPrice: null, staticReferencePrice: null, fair: null });
          const mid = bid.add(ask).div(2);
          expect(micro?.gte(bid) && micro.lte(ask)).toBe(true);
          // More size on the bid than on the ask pushes it above the mid, and vice versa.
          expect(micro?.cmp(mid)).toBe(bq.cmp(aq));
        },
      ),
    );
  });
});

describe('fallbacks', () => {
  const oneSided = othersBook({ bids: levels(['99', '3']), asks: [] }, []);
  const crossed = othersBook({ bids: levels(['101', '3']), asks: levels(['100', '1']) }, []);

  it('the first available source wins and is named', () => {
    expect(referencePrice(['mid', 'last'], inputs)).toEqual({ price: d('100'), source: 'mid' });
    expect(referencePrice(['static', 'mid'], inputs)).toEqual({ price: d('97'), source: 'static' });
  });
  it('a one-sided, empty or crossed book falls back to the next source', () => {
    for (const b of [oneSided, othersBook({ bids: [], asks: [] }, []), crossed]) {
      expect(referencePrice(['microprice', 'mid', 'last', 'static'], { ...inputs, book: b })?.source).toBe('last');
    }
  });
  it('a missing or non-positive last price falls back to static; nothing available gives null', () => {
    expect(referencePrice(['last', 'static'], { ...inputs, lastPrice: null })?.source).toBe('static');
    expect(referencePrice(['last', 'static'], { ...inputs, lastPrice: d('0') })?.source).toBe('static');
    expect(
      referencePrice(['mid', 'last'], { book: oneSided, lastPrice: null, staticReferencePrice: d('97'), fair: null }),
    ).toBeNull();
  });
});

const shown = (b: ReturnType<typeof othersBook>) => b.bids.map((l) => `${l.quantity.toFixed()}@${l.price.toFixed()}`);

describe('the book of others', () => {
  it('takes our own live orders out, so our quotes do not move the reference', () => {
    const market = { bids: levels(['99.5', '2'], ['99', '3']), asks: levels(['100.5', '1'], ['101', '1']) };
    const own = [liveOrder('1', 'buy', '99.5', '2'), liveOrder('2', 'sell', '100.5', '0.4')];
    const b = othersBook(market, own);
    expect(b.bids.map((l) => [l.price.toFixed(), l.quantity.toFixed()])).toEqual([['99', '3']]);
    expect(b.asks.map((l) => [l.price.toFixed(), l.quantity.toFixed()])).toEqual([
      ['100.5', '0.6'],
      ['101', '1'],
    ]);
    expect(priceFrom('mid', { book: b, lastPrice: null, staticReferencePrice: null, fair: null })?.toFixed()).toBe(
      '99.75',
    );
  });
  it('is worked out again when the levels or any of our orders differ, and not when the same ones come again', () => {
    const market = { bids: levels(['99.5', '2'], ['99', '3']), asks: levels(['100.5', '1'], ['101', '1']) };
    const bid = liveOrder('1', 'buy', '99.5', '2');
    const first = othersBook(market, [bid]);
    // The same levels and orders in a new array: the same book.
    expect(othersBook({ ...market }, [bid])).toBe(first);
    // An order of ours that moved (a new object), one less, another book: each its own answer.
    expect(shown(othersBook(market, [liveOrder('1', 'buy', '99', '1')]))).toEqual(['2@99.5', '2@99']);
    expect(shown(othersBook(market, []))).toEqual(['2@99.5', '3@99']);
    expect(shown(othersBook({ ...market, bids: levels(['99.5', '5']) }, [bid]))).toEqual(['3@99.5']);
    expect(shown(othersBook(market, [bid]))).toEqual(['3@99']);
  });
  it('clamps at zero when the view lags behind our orders, and sorts best first', () => {
    const b = othersBook({ bids: levels(['98', '1'], ['99', '1']), asks: [] }, [liveOrder('1', 'buy', '99', '5')]);
    expect(b.bids.map((l) => l.price.toFixed())).toEqual(['98']);
    const sorted = othersBook({ bids: levels(['98', '1'], ['99', '1']), asks: levels(['102', '1'], ['101', '1']) }, []);
    expect(sorted.bids[0]?.price.toFixed()).toBe('99');
    expect(sorted.asks[0]?.price.toFixed()).toBe('101');
  });
});
