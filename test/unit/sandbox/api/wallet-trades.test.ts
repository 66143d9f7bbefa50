/**
 * The sandbox's wallet trade list: every match the indexers apply becomes one record per order of a
 * participant wallet (the incoming order's and each resting order's), served by `GET /wallets/{address}/trades`
 * in sequence order with cursor paging, final on chain A once the indexer is two blocks past the trade; the
 * control endpoint's injected trades are listed the same way.
 */
import { describe, expect, it } from 'vitest';
import type { BookEvent } from '../../../../src/sandbox/matching/types.ts';
import { routeApi, type ApiContext } from '../../../../src/sandbox/api/rest-routes.ts';
import { injectTrade } from '../../../../src/sandbox/venue/trade-routes.ts';
import { FIRST_PAIR, firstPairState } from '../../../support/sandbox/venue-state.ts';

const MM = '0x00000000000000000000000000000000000000aa';
const TRADER = '0x00000000000000000000000000000000000000bb';
const OUTSIDER = '0x00000000000000000000000000000000000000cc';

function setup() {
  const { state, market } = firstPairState('CONTINUOUS_TRADING', 'START_OF_TRADING_DAY', [
    { name: 'mm', chain: 'evm', address: MM, marketMaker: true },
    { name: 'trader', chain: 'evm', address: TRADER },
  ]);
  const ctx: ApiContext = { state, accessToken: 'tok', nowMs: () => 0 };
  const get = (path: string, query = '') =>
    routeApi({ method: 'GET', path, params: new URLSearchParams(query), authorization: 'Bearer tok' }, ctx) as {
      items: Record<string, unknown>[];
      next_cursor?: string;
      total_count?: number;
    };
  const rest = (client: string, orderId: bigint, side: 'buy' | 'sell', quantity: bigint, price: bigint) => {
    const e: BookEvent = { type: side === 'buy' ? 'NewBuyOrder' : 'NewSellOrder', client, orderId, quantity, price };
    market.apply(e, 1_000);
  };
  const trade = (
    client: string,
    orderId: bigint,
    side: 'buy' | 'sell',
    quantity: bigint,
    price: bigint,
    tx: string,
  ) => {
    const e: BookEvent = {
      type: side === 'buy' ? 'NewBuyInitiatedTrade' : 'NewSellInitiatedTrade',
      client,
      orderId,
      quantity,
      price,
    };
    market.apply(e, 2_000, { txHash: tx, height: 10 });
  };
  return { state, get, rest, trade };
}

describe('GET /wallets/{address}/trades', () => {
  it('lists each participant order of a match at the match price, with the trade transaction and order id', () => {
    const { get, rest, trade } = setup();
    // Two resting sells (ours and an outsider's) filled by the trader's buy: scales 10000, so 1.5 = 15000.
    rest(MM, 1n, 'sell', 15_000n, 1_012_000n);
    rest(OUTSIDER, 2n, 'sell', 20_000n, 1_013_000n);
    trade(TRADER, 3n, 'buy', 25_000n, 1_013_000n, '0xabc');
    const mm = get(`/wallets/${MM}/trades`, 'count=true');
    expect(mm.total_count).toBe(1);
    expect(mm.items).toEqual([
      expect.objectContaining({
        // The trader's record of the match comes first.
        sequenceNo: 2,
        transactionType: 'SELL',
        tradingPairId: FIRST_PAIR.pair.id,
        baseTokenSymbol: 'BOND26',
        baseTokenQuantity: '1.5',
        quoteTokenSymbol: 'EURe',
        price: '101.3',
        quoteTokenQuantity: '151.95',
        // The market maker's rate of the pair (5 bps) on 151.95.
        commission: '0.075975',
        orderId: '1',
        transactionHash: '0xabc',
        liquidityRole: 'MAKER',
        finalityDate: null,
        transactionDate: new Date(2_000).toISOString(),
      }),
    ]);
    const taker = get(`/wallets/${TRADER.toUpperCase().replace('0X', '0x')}/trades`).items;
    expect(taker.map((t) => [t.orderId, t.transactionType, t.baseTokenQuantity, t.liquidityRole])).toEqual([
      ['3', 'BUY', '2.5', 'TAKER'],
    ]);
  });

  it('pages in sequence order with next_cursor and marks chain A trades final two blocks later', () => {
    const { state, get, rest, trade } = setup();
    for (let i = 1n; i <= 5n; i++) {
      rest(MM, i * 10n, 'buy', 10_000n, 990_000n);
      trade(TRADER, i * 10n + 1n, 'sell', 10_000n, 990_000n, `0x${i}`);
    }
    const first = get(`/wallets/${MM}/trades`, 'limit=2&count=true');
    expect(first.items.map((t) => t.orderId)).toEqual(['10', '20']);
    expect(first.total_count).toBe(5);
    const second = get(`/wallets/${MM}/trades`, `limit=2&cursor=${first.next_cursor}`);
    expect(second.items.map((t) => t.orderId)).toEqual(['30', '40']);
    const third = get(`/wallets/${MM}/trades`, `limit=2&cursor=${second.next_cursor}`);
    expect(third.items.map((t) => t.orderId)).toEqual(['50']);
    expect(third.next_cursor).toBeUndefined();

    state.trades.processed('evm', 11, 5_000);
    expect(get(`/wallets/${MM}/trades`).items.every((t) => t.finalityDate === null)).toBe(true);
    state.trades.processed('evm', 12, 6_000);
    expect(get(`/wallets/${MM}/trades`).items.every((t) => t.finalityDate === new Date(6_000).toISOString())).toBe(
      true,
    );
  });

  it('refuses a foreign cursor, an unknown wallet and a missing token', () => {
    const { state, get } = setup();
    expect(() => get(`/wallets/${MM}/trades`, 'cursor=abc')).toThrow(/not issued by this API/);
    expect(() => get(`/wallets/${OUTSIDER}/trades`)).toThrow(/No wallet/);
    const ctx: ApiContext = { state, accessToken: 'tok', nowMs: () => 0 };
    expect(() =>
      routeApi(
        { method: 'GET', path: `/wallets/${MM}/trades`, params: new URLSearchParams(), authorization: undefined },
        ctx,
      ),
    ).toThrow(/authentication/);
  });

  it('lists an injected trade, final at once, with a made-up transaction hash', () => {
    const { state, get } = setup();
    const record = injectTrade(state, 7_000, {
      wallet: MM,
      pair: FIRST_PAIR.pair.symbol,
      side: 'buy',
      quantity: '2',
      price: '100.5',
      orderId: '77',
    });
    expect(record).toMatchObject({ orderId: '77', baseTokenQuantity: '2', price: '100.5' });
    expect(record.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(get(`/wallets/${MM}/trades`).items).toEqual([
      expect.objectContaining({ orderId: '77', finalityDate: new Date(7_000).toISOString() }),
    ]);
    expect(() =>
      injectTrade(state, 7_000, {
        wallet: MM,
        pair: FIRST_PAIR.pair.symbol,
        side: 'buy',
        quantity: '0.00001',
        price: '1',
      }),
    ).toThrow(/not an integer/);
  });
});
