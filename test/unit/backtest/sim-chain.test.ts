/**
 * The simulated chain of the backtest: recorded orders of others are sent again with their full terms and
 * match the replayed book (ours included) by price and time; a recorded cancellation of an order already
 * traded away changes nothing; the recorded transactions of the wallet under test are left out; a failing
 * transaction of ours changes nothing; balances of the wallet under test move exactly.
 */
import { describe, expect, it } from 'vitest';
import { SimChain, type RecordedEvent } from '../../../src/backtest/sim-chain.ts';
import { submitOrder } from '../../../src/sandbox/matching/engine.ts';
import { bindingOf } from '../../../src/cli/bootstrap/pairs.ts';
import { pairWith } from '../../support/pairs.ts';

const WALLET = '0x00000000000000000000000000000000000000aa';
const OTHER = '0x00000000000000000000000000000000000000bb';
const binding = bindingOf(pairWith('evm-pair'), undefined);
const s = binding.rules.scales;
const state = { phase: 1, open: true, scales: s, makerBps: 0, takerBps: 0, marketMakerBps: 0, prefunded: true };

function chain() {
  const c = new SimChain(
    'evm',
    [{ binding, state }],
    { wallets: new Set([WALLET]), marketMakers: new Set() },
    { height: 9n, timeMs: 1_000_000 },
  );
  c.fund(binding.baseToken, WALLET, 100n * s.baseNative);
  c.fund(binding.quoteToken, WALLET, 100_000n * s.quoteNative);
  return c;
}

const received = (
  client: string,
  orderId: bigint,
  side: 'buy' | 'sell',
  quantity: bigint,
  price: bigint,
): RecordedEvent => ({
  type: 'OrderReceived',
  client,
  orderId,
  side,
  quantity,
  price,
  crossIdentifier: 0n,
  orderType: 0,
  executionCondition: 0,
  cancellationType: null,
  token: null,
});

/** Our sell of `quantity` at `price` (raw internal units), as the adapter sends it. */
function ourSell(c: SimChain, quantity: bigint, price: bigint) {
  return {
    txHash: c.nextTxHash(),
    pairId: binding.pairId,
    sender: WALLET,
    action: (book: Parameters<typeof submitOrder>[0], ctx: Parameters<typeof submitOrder>[1]) => {
      const r = submitOrder(book, ctx, WALLET, 'sell', () => ({
        quantity,
        price,
        crossId: 7n,
        type: 'limit',
        condition: 'standard',
        validity: 'gtd',
        lifetimeDays: 0,
        reportingData: new Uint8Array([0]),
      }));
      return { events: r.events, orderId: r.orderId };
    },
  };
}

describe('SimChain', () => {
  it("matches a recorded buyer against our resting sell where live it met another's, and moves our balances exactly", () => {
    const c = chain();
    const price = 1_000_000n; // 100.0000
    c.mine(10n, 1_001_000, [], [ourSell(c, 20_000n, price)]);
    expect(c.book(binding.pairId).sells.map((o) => o.wallet)).toEqual([WALLET]);
    // Live, this buyer met another seller (recorded id 55); here it meets ours.
    const block = c.mine(
      11n,
      1_002_000,
      [{ txHash: '0xrec1', pairId: binding.pairId, events: [received(OTHER, 55n, 'buy', 10_000n, price)] }],
      [],
    );
    const trade = block.txs[0]?.events.find((e) => e.type === 'Transfer' && e.to === WALLET);
    expect(trade).toBeDefined();
    expect(c.book(binding.pairId).sells[0]?.remaining).toBe(10_000n);
    // 1 token at 100 came in as quote (no commission at 0 bp); 2 tokens of base were locked when the sell rested.
    expect(c.balance(binding.quoteToken, WALLET)).toBe(100_000n * s.quoteNative + 100n * s.quoteNative);
    expect(c.balance(binding.baseToken, WALLET)).toBe(98n * s.baseNative);
    expect(c.counts.orders).toBe(1);
  });

  it('applies a recorded cancellation to the replayed order, and a cancellation of an order traded away changes nothing', () => {
    const c = chain();
    const price = 990_000n;
    const order = received(OTHER, 70n, 'buy', 10_000n, price);
    const rests = { txHash: '0xa', pairId: binding.pairId, events: [order, { ...order, type: 'OrderResting' }] };
    c.mine(10n, 1_001_000, [rests], []);
    expect(c.book(binding.pairId).buys).toHaveLength(1);
    const cancel = (id: bigint): RecordedEvent => ({
      ...received(OTHER, id, 'buy', 10_000n, price),
      type: 'OrderCancelled',
      cancellationType: 'ByParticipant',
    });
    c.mine(11n, 1_002_000, [{ txHash: '0xb', pairId: binding.pairId, events: [cancel(70n)] }], []);
    expect(c.book(binding.pairId).buys).toHaveLength(0);
    c.mine(12n, 1_003_000, [{ txHash: '0xc', pairId: binding.pairId, events: [cancel(70n)] }], []);
    expect(c.counts).toMatchObject({ cancels: 1, moot: 1 });
  });

  it('an order of others that did not rest live is immediate-or-cancel: it leaves no standing order it never had', () => {
    const c = chain();
    // Live this buyer traded in full against a seller the replay does not have.
    const buyer = received(OTHER, 71n, 'buy', 10_000n, 1_000_000n);
    c.mine(10n, 1_001_000, [{ txHash: '0xa', pairId: binding.pairId, events: [buyer] }], []);
    expect(c.book(binding.pairId).buys).toHaveLength(0);
  });

  it('a recorded cancellation of an order from before the recording takes its quantity off the seeded level', () => {
    const c = chain();
    c.seed(binding.pairId, 'sell', [{ price: 1_010_000n, quantity: 30_000n }]);
    const cancel: RecordedEvent = {
      ...received(OTHER, 5n, 'sell', 10_000n, 1_010_000n),
      type: 'OrderCancelled',
      cancellationType: 'ByParticipant',
      token: binding.baseToken,
    };
    c.mine(10n, 1_001_000, [{ txHash: '0xa', pairId: binding.pairId, events: [cancel] }], []);
    expect(c.book(binding.pairId).sells.map((o) => o.remaining)).toEqual([20_000n]);
  });

  it('leaves out the recorded transactions of the wallet under test: the bot under test sends its own', () => {
    const c = chain();
    const block = c.mine(
      10n,
      1_001_000,
      [{ txHash: '0xlive', pairId: binding.pairId, events: [received(WALLET, 3n, 'sell', 10_000n, 1_010_000n)] }],
      [],
    );
    expect(block.txs).toHaveLength(0);
    expect(c.book(binding.pairId).sells).toHaveLength(0);
  });

  it('refuses our order the venue would refuse (150 tokens, we hold 100) and changes nothing', () => {
    const c = chain();
    const block = c.mine(10n, 1_001_000, [], [ourSell(c, 1_500_000n, 1_000_000n)]);
    expect(block.txs[0]?.ok).toBe(false);
    expect(block.txs[0]?.error?.code).toBe('E_VENUE_INSUFFICIENT_BALANCE');
    expect(c.book(binding.pairId).sells).toHaveLength(0);
    expect(c.balance(binding.baseToken, WALLET)).toBe(100n * s.baseNative);
  });
});
