/**
 * The flow's taker statistics from the venue's view: a trade event names only the incoming order's wallet;
 * the resting orders it filled, and so their wallets, come from the indexer's book in price-time priority.
 * Informed and uninformed takers are told apart by their wallets; other wallets' trades are not counted.
 */
import { describe, expect, it } from 'vitest';
import type { BookEvent } from '../../../../src/sandbox/matching/types.ts';
import { TakerStats } from '../../../../src/sandbox/flow/taker-stats.ts';
import { firstPairState } from '../../../support/sandbox/venue-state.ts';

const MAKER_A = '0x00000000000000000000000000000000000000aa';
const MAKER_B = '0x00000000000000000000000000000000000000bb';
const INFORMED = '0x00000000000000000000000000000000000000CC';
const UNINFORMED = '0x00000000000000000000000000000000000000dd';

function received(client: string, orderId: bigint, side: 1 | 2, quantity: bigint, price: bigint): BookEvent {
  return {
    type: 'OrderReceived',
    client,
    orderId,
    quantity,
    price,
    side,
    reportingData: new Uint8Array(),
    crossIdentifier: 0n,
    orderType: 0,
    executionCondition: 0,
  };
}

describe('taker statistics', () => {
  it('attribute each trade to the resting orders it filled, by wallet, per kind of taker', () => {
    const { state, market } = firstPairState('CONTINUOUS_TRADING', 'START_OF_TRADING_DAY');
    const pair = state.pairs[0];
    if (pair === undefined) throw new Error('no pair');
    const stats = new TakerStats(
      [pair],
      new Map([
        [INFORMED.toLowerCase(), 'informed'],
        [UNINFORMED, 'uninformed'],
      ]),
    );
    const rest = (client: string, id: bigint, price: bigint, quantity: bigint) => {
      market.apply(received(client, id, 2, quantity, price), 0);
      market.apply({ type: 'NewSellOrder', client, orderId: id, quantity, price }, 0);
    };
    // Asks: A at 1005000 (1 unit = 10^4 raw), B at the same price later, A again higher.
    rest(MAKER_A, 1n, 1_005_000n, 20_000n);
    rest(MAKER_B, 2n, 1_005_000n, 30_000n);
    rest(MAKER_A, 3n, 1_010_000n, 50_000n);
    // The informed taker buys 4 units: all of A's first order, 2 of B's.
    market.apply(received(INFORMED, 4n, 1, 40_000n, 1_005_000n), 0);
    market.apply(
      { type: 'NewBuyInitiatedTrade', client: INFORMED, orderId: 4n, quantity: 40_000n, price: 1_005_000n },
      0,
    );
    stats.order(pair.id, 'informed');
    // The uninformed taker buys 2 units: B's last unit and one of A's second order.
    market.apply(received(UNINFORMED, 5n, 1, 20_000n, 1_010_000n), 0);
    market.apply(
      { type: 'NewBuyInitiatedTrade', client: UNINFORMED, orderId: 5n, quantity: 20_000n, price: 1_010_000n },
      0,
    );
    stats.order(pair.id, 'uninformed');
    // Someone else's trade is not the flow's.
    market.apply(
      { type: 'NewBuyInitiatedTrade', client: MAKER_B, orderId: 6n, quantity: 10_000n, price: 1_010_000n },
      0,
    );
    expect(stats.describe()[pair.id]).toEqual({
      informed: {
        orders: 1,
        fillsByWallet: { [MAKER_A]: { fills: 1, quantity: '2' }, [MAKER_B]: { fills: 1, quantity: '2' } },
      },
      uninformed: {
        orders: 1,
        fillsByWallet: { [MAKER_B]: { fills: 1, quantity: '1' }, [MAKER_A]: { fills: 1, quantity: '1' } },
      },
    });
  });
});
