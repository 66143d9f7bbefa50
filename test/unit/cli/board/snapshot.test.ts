import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ObligationStatus } from '../../../../src/cli/board/obligations.ts';
import { snapshot, type BoardBot, type BoardEngine } from '../../../../src/cli/board/snapshot.ts';
import { RecentWarnings } from '../../../../src/cli/board/warnings.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { newOrder, type OrderEvent } from '../../../../src/core/order-state.ts';
import type { PairStatus } from '../../../../src/market/status.ts';
import { resolveLimits } from '../../../../src/engine/risk/limits.ts';
import { RiskMonitor } from '../../../../src/engine/risk/monitor.ts';
import { openStore, type Store } from '../../../../src/store/store.ts';

const T = 1_000_000;
const d = (v: string) => new Decimal(v);
/** Quantities in hundredths, prices in ten-thousandths (the pair's internal scales). */
const scales = { baseInternal: 100n, quoteInternal: 10_000n, baseNative: 100n, quoteNative: 10_000n };

let dir: string;
let store: Store;
let cid = 0n;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-board-'));
  store = openStore(join(dir, 'state.sqlite'), () => T);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An order of `wallet` taken through `events`; quantity and price in human units. */
function order(
  wallet: string,
  side: 'buy' | 'sell',
  quantity: string,
  price: string,
  events: readonly OrderEvent[],
): void {
  cid += 1n;
  const q = BigInt(d(quantity).mul(100).toFixed(0));
  store.orders.create(
    newOrder({ clientOrderId: cid, pairId: 'p1', side, quantity: q, price: BigInt(d(price).mul(10_000).toFixed(0)) }),
    { wallet, chain: 'evm' },
  );
  for (const e of events) expect(store.orders.apply(wallet, cid, e).ok).toBe(true);
}
const resting = (quantity: string): OrderEvent[] => [
  { type: 'SubmissionSent', txHash: `0x${cid}` },
  { type: 'Accepted', orderId: 1000n + cid },
  { type: 'Rested', quantity: BigInt(d(quantity).mul(100).toFixed(0)) },
];

const status = (s: Partial<PairStatus>): PairStatus => ({
  tradingStatus: 'CONTINUOUS_TRADING',
  statusChangeReason: null,
  statusChangeReasonText: null,
  haltEndMs: null,
  lastPrice: d('100'),
  staticReferencePrice: d('98'),
  tradeVolume24h: null,
  haltCounter: 0,
  phase: 1,
  phaseOpen: true,
  tradeInfoAtMs: T,
  ...s,
});

function setUp() {
  const risk = new RiskMonitor();
  risk.addPair('p1', 'w', resolveLimits({ staleMarketDataMs: 10_000 }), T);
  const marks: Array<Decimal | null> = [];
  const bot: BoardBot = {
    phase: 'trading',
    loops: new Map([['p1', { symbol: 'BOND26EURe', last: null }]]),
    statuses: new Map([['p1', { current: status({}) }]]),
    pnl: new Map([
      ['p1', { position: d('1.5'), fills: 4, total: (mark: Decimal | null) => (marks.push(mark), d('-0.25')) }],
    ]),
    risk,
  };
  const runtime = { binding: { chain: 'evm' as const, rules: { scales } } };
  const engine: BoardEngine = {
    chain: 'evm',
    wallet: 'w',
    pair: (pairId) => (pairId === 'p1' ? runtime : undefined),
    liveOrders: (pairId) => store.orders.live({ wallet: 'w', pairId }),
    transactionsInFlight: () => store.transactions.open('evm').filter((t) => t.wallet === 'w').length,
  };
  return { risk, bot, engine, marks };
}

describe('board snapshot', () => {
  it('shows our best resting order a side, with all we rest at that price, from the store as the chain reported it', () => {
    order('w', 'buy', '1', '99.5', resting('1'));
    order('w', 'buy', '1.5', '99.8', resting('1.5'));
    order('w', 'buy', '2', '99.8', resting('2'));
    // Placed but not included yet: not on the book as far as the chain has told us.
    order('w', 'buy', '1', '99.9', [{ type: 'SubmissionSent', txHash: '0xpending' }]);
    order('w', 'sell', '0.5', '100.2', resting('0.5'));
    order('w', 'sell', '3', '100.1', [...resting('3'), { type: 'Cancelled', by: 'ByParticipant', quantity: 300n }]);
    // Another wallet's order on the same pair is not ours to show.
    order('other', 'sell', '1', '100.0', resting('1'));
    const { bot, engine } = setUp();
    const m = snapshot({
      bot,
      engines: [engine],
      warnings: new RecentWarnings(),
      logPath: 'bot.log',
      now: () => T + 500,
    });
    expect(m.pairs).toHaveLength(1);
    const row = m.pairs[0]!;
    expect(row.bid).toEqual({ price: d('99.8'), size: d('3.5') });
    expect(row.ask).toEqual({ price: d('100.2'), size: d('0.5') });
    // (100.2 - 99.8) / 100 in basis points.
    expect(row.spreadBps?.toFixed()).toBe('40');
  });

  it('takes position, PnL at the venue last price, fills and state from the bot, and reads nothing when one side is missing', () => {
    order('w', 'buy', '1', '99.5', resting('1'));
    const { bot, engine, marks, risk } = setUp();
    risk.setFlag('p1', 'inventory-mismatch', true);
    const m = snapshot({ bot, engines: [engine], warnings: new RecentWarnings(), logPath: null, now: () => T });
    expect(m.pairs[0]).toMatchObject({
      symbol: 'BOND26EURe',
      chain: 'evm',
      ask: null,
      spreadBps: null,
      position: d('1.5'),
      pnl: d('-0.25'),
      fills: 4,
      state: { kind: 'paused', detail: 'inventory-mismatch' },
    });
    expect(marks).toEqual([d('100')]);
    expect(m.phase).toBe('trading');
    expect(m.logPath).toBeNull();
  });

  it("asks the obligations provider for each pair at the board's time, and shows nothing of its own without one", () => {
    const { bot, engine } = setUp();
    const figures: ObligationStatus = {
      presence: 0.9,
      presenceTarget: 0.8,
      spread: d('30'),
      maxSpread: d('50'),
      spreadUnit: 'bps',
      compliant: true,
    };
    const asked: Array<[string, number]> = [];
    const provider = { status: (pairId: string, nowMs: number) => (asked.push([pairId, nowMs]), figures) };
    expect(
      snapshot({
        bot,
        engines: [engine],
        warnings: new RecentWarnings(),
        logPath: null,
        now: () => T + 7,
        obligations: provider,
      }).pairs[0]?.obligations,
    ).toBe(figures);
    expect(asked).toEqual([['p1', T + 7]]);
    expect(
      snapshot({
        bot,
        engines: [engine],
        warnings: new RecentWarnings(),
        logPath: null,
        now: () => T,
        obligations: { status: () => null },
      }).pairs[0]?.obligations,
    ).toBeNull();
    expect(
      snapshot({ bot, engines: [engine], warnings: new RecentWarnings(), logPath: null, now: () => T }).pairs[0]
        ?.obligations,
    ).toBeNull();
  });

  it("shows each wallet's last native fee balance and its transactions not settled yet", () => {
    const { bot, engine, risk } = setUp();
    const tx = (hash: string, wallet: string, sequence: bigint) =>
      store.transactions.recordSigned({
        txHash: hash,
        chain: 'evm',
        wallet,
        source: wallet,
        sequence,
        kind: 'place',
        clientOrderId: null,
        raw: '0x',
      });
    tx('0x1', 'w', 1n);
    tx('0x2', 'w', 2n);
    tx('0x3', 'w', 3n);
    tx('0x4', 'other', 1n);
    store.transactions.mark('0x2', 'sent');
    store.transactions.mark('0x3', 'included');
    const before = snapshot({ bot, engines: [engine], warnings: new RecentWarnings(), logPath: null, now: () => T });
    expect(before.wallets).toEqual([{ chain: 'evm', address: 'w', native: null, inFlight: 2 }]);
    risk.nativeBalance('w', d('0.75'));
    expect(
      snapshot({ bot, engines: [engine], warnings: new RecentWarnings(), logPath: null, now: () => T }).wallets[0]
        ?.native,
    ).toEqual(d('0.75'));
  });
});
