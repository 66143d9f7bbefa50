import { describe, expect, it } from 'vitest';
import { BookReplay } from './book-replay.ts';
import type { BotOrder, BotRefusal } from './bot-record.ts';
import { incidentsOf, type IncidentInput } from './incidents.ts';
import type { ChainTx, OrderTruth, SentCall } from './model.ts';

const published = {
  evm: new Map([
    [10, 10_000],
    [11, 12_000],
    [12, 14_000],
  ]),
  wasm: new Map([
    [100, 10_000],
    [101, 15_000],
  ]),
};

const filled = (chain: 'evm' | 'wasm', orderId: string, height: number): OrderTruth => ({
  chain,
  pairId: 'p',
  orderId,
  crossId: '1',
  side: 'buy',
  quantity: 10n,
  receivedHeight: height - 1,
  restedHeight: height - 1,
  filled: 10n,
  fills: [{ height, quantity: 10n }],
  closedHeight: height,
  closedBy: 'filled',
  rejectReason: null,
  tradedOnArrival: 0n,
});

const tx = (o: Partial<ChainTx>): ChainTx => ({
  chain: 'evm',
  hash: '0x1',
  height: 11,
  index: 0,
  call: 'cancel',
  fn: 'cancelBuyOrder',
  pairId: 'p',
  orderId: '7',
  approval: null,
  success: true,
  code: null,
  name: null,
  ...o,
});
const sent = (o: Partial<SentCall>): SentCall => ({
  chain: 'evm',
  atMs: 0,
  method: 'send',
  hash: '0x1',
  source: 'w',
  call: 'cancel',
  fn: 'cancelBuyOrder',
  pairId: 'p',
  orderId: '7',
  ok: true,
  code: null,
  name: null,
  ...o,
});

function input(o: Partial<IncidentInput>): IncidentInput {
  return {
    txs: [],
    calls: [],
    busy: new Set(),
    dropped: [],
    orders: new Map(),
    halts: new Map(),
    bot: { byOrderId: new Map(), refusals: [] },
    evmSimulations: [],
    published,
    ...o,
  };
}

describe('incidentsOf', () => {
  it('a reverted cancel carries the removal, the earlier cancel and what the bot knew, timed by its send', () => {
    const orders = new Map([[BookReplay.key('evm', 'p', '7'), filled('evm', '7', 11)]]);
    const bot: IncidentInput['bot'] = {
      byOrderId: new Map([['evm|p|7', { goneMs: 13_000 } as BotOrder]]),
      refusals: [],
    };
    const { incidents, cancels } = incidentsOf(
      input({
        txs: [
          tx({ hash: '0xa', height: 11, success: true }),
          tx({
            hash: '0xb',
            height: 12,
            index: 3,
            success: false,
            code: 'E_VENUE_ORDER_NOT_FOUND',
            name: 'OrderBook_OrderNotFound',
          }),
        ],
        calls: [sent({ hash: '0xa', atMs: 11_000 }), sent({ hash: '0xb', atMs: 12_500 })],
        orders,
        bot,
      }),
    );
    expect(incidents).toEqual([
      {
        chain: 'evm',
        stage: 'inclusion',
        call: 'cancel',
        pairId: 'p',
        code: 'E_VENUE_ORDER_NOT_FOUND',
        name: 'OrderBook_OrderNotFound',
        txHash: '0xb',
        orderId: '7',
        atMs: 12_500,
        height: 12,
        facts: {
          removal: { height: 11, how: 'filled', nextPublishedMs: 14_000 },
          earlierCancel: { txHash: '0xa', height: 11 },
          botKnewGoneMs: 13_000,
        },
      },
    ]);
    expect(cancels.map((c) => [c.txHash, c.atMs, c.at])).toEqual([
      ['0xa', 11_000, { height: 11, index: 0 }],
      ['0xb', 12_500, { height: 12, index: 3 }],
    ]);
  });

  it('times a refusal the bot logged by the simulation that asked for it', () => {
    const refusal: BotRefusal = {
      chain: 'evm',
      atMs: 15_000,
      call: 'cancel',
      pairId: 'p',
      orderId: '7',
      code: 'E_VENUE_ORDER_NOT_FOUND',
      name: 'OrderBook_OrderNotFound',
    };
    const simulations = [
      sent({ method: 'simulate', hash: null, atMs: 11_500, ok: false, code: 'E_VENUE_ORDER_NOT_FOUND' }),
      sent({ method: 'simulate', hash: null, atMs: 11_900, ok: true }),
      sent({ method: 'simulate', hash: null, atMs: 11_950, orderId: '8', ok: false, code: 'E_VENUE_ORDER_NOT_FOUND' }),
    ];
    const { incidents } = incidentsOf(
      input({ bot: { byOrderId: new Map(), refusals: [refusal] }, evmSimulations: simulations }),
    );
    expect(incidents.map((i) => [i.stage, i.atMs, i.height])).toEqual([['simulation', 11_500, null]]);
    // Without a recorded simulation the log line's time stands.
    expect(incidentsOf(input({ bot: { byOrderId: new Map(), refusals: [refusal] } })).incidents[0]?.atMs).toBe(15_000);
  });

  it('turns recorder refusals, dropped transactions and the contract’s verdicts into incidents', () => {
    const tal = sent({
      chain: 'wasm',
      hash: 'h2',
      call: 'place',
      orderId: null,
      atMs: 10_500,
      ok: false,
      code: 'TRY_AGAIN_LATER',
      name: 'TRY_AGAIN_LATER',
    });
    const rejected: OrderTruth = {
      ...filled('wasm', '9', 101),
      filled: 0n,
      fills: [],
      restedHeight: null,
      closedBy: 'rejected',
      rejectReason: 1,
    };
    const byContract: OrderTruth = {
      ...filled('wasm', '10', 101),
      filled: 0n,
      fills: [],
      closedBy: 'cancelled by the contract',
    };
    const { incidents } = incidentsOf(
      input({
        calls: [tal, sent({ chain: 'wasm', hash: 'h3', call: 'place', orderId: null, atMs: 10_600 })],
        busy: new Set([tal]),
        dropped: [
          { hash: 'h3', ledger: 101 },
          { hash: 'someone else', ledger: 101 },
        ],
        orders: new Map([
          [BookReplay.key('wasm', 'p', '9'), rejected],
          [BookReplay.key('wasm', 'p', '10'), byContract],
        ]),
      }),
    );
    // In the order they left the bot (a verdict of the contract: when its placement's block was published).
    expect(incidents.map((i) => [i.stage, i.code, i.name, i.facts])).toEqual([
      ['matching', 'E_REJECTED_SELF_TRADE', 'OrderRejected SelfTrade', {}],
      ['matching', 'CANCELLED_BY_CONTRACT', 'CancelOrder ByContract', {}],
      ['submission', 'TRY_AGAIN_LATER', 'TRY_AGAIN_LATER', { sourceBusy: true }],
      ['expiry', 'DROPPED', 'dropped without inclusion', {}],
    ]);
  });

  it('finds the latest halt a closed-market refusal could have met', () => {
    const refusal = sent({
      chain: 'wasm',
      method: 'simulate',
      hash: null,
      call: 'place',
      orderId: null,
      atMs: 15_500,
      ok: false,
      code: 'E_VENUE_MARKET_CLOSED',
    });
    const { incidents } = incidentsOf(input({ calls: [refusal], halts: new Map([['p', [100, 101]]]) }));
    expect(incidents[0]?.facts).toEqual({ halt: { height: 101, nextPublishedMs: null } });
  });
});
