/**
 * The trade reconciliation: the venue's list of a wallet's trades against the fills attributed from the chain.
 * The pure comparison matches by transaction and on-chain order and checks quantity and price; a leftover is a
 * mismatch only once due (final at the venue plus the grace; our fill first seen plus the grace). The periodic
 * check reports each mismatch once, in a warning with the ids and in the metric.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../../src/core/decimal.ts';
import {
  compareTrades,
  type FillView,
  type VenueTradeView,
} from '../../../../../src/engine/wallet/trades/compare-trades.ts';
import { TradeCheck } from '../../../../../src/engine/wallet/trades/trade-check.ts';
import type { FillRecord } from '../../../../../src/store/order-rows.ts';
import type { StoredOrder } from '../../../../../src/store/order-store.ts';
import { createLogger } from '../../../../../src/telemetry/logger.ts';
import { createMetrics } from '../../../../../src/telemetry/metrics.ts';
import type { VenueTrade } from '../../../../../src/venue/payload/wallet-trades.ts';
import { TestClock } from '../../../../support/clock.ts';
import { metricValue } from '../../../../support/venue/metric-value.ts';

const GRACE = 60_000;
const NOW = 1_000_000;

function venue(id: string, over: Partial<VenueTradeView> = {}): VenueTradeView {
  return {
    id,
    orderId: 7n,
    txHash: '0xAB',
    quantity: new Decimal('1.5'),
    price: new Decimal('101.3'),
    finalAtMs: NOW - GRACE,
    ...over,
  };
}

function fill(fillId: string, over: Partial<FillView> = {}): FillView {
  return {
    fillId,
    orderId: 7n,
    txHash: 'ab',
    quantity: new Decimal('1.50'),
    price: new Decimal('101.30'),
    sinceMs: NOW - GRACE,
    ...over,
  };
}

describe('compareTrades', () => {
  it('matches a venue trade with our fill by transaction (any case, with or without 0x) and order id', () => {
    expect(compareTrades([venue('v1')], [fill('f1')], NOW, GRACE)).toEqual([]);
  });

  it('reports a final venue trade the chain did not have once the grace has passed since its finality', () => {
    const injected = venue('v2', { txHash: '0xdead', finalAtMs: NOW - GRACE + 1 });
    expect(compareTrades([injected], [], NOW, GRACE)).toEqual([]);
    expect(compareTrades([injected], [], NOW + 1, GRACE)).toEqual([
      { kind: 'venue-only', key: 'venue:v2', venue: injected },
    ]);
    // A trade the venue has not called final is never due.
    expect(compareTrades([venue('v3', { finalAtMs: null })], [], NOW * 10, GRACE)).toEqual([]);
  });

  it('reports a fill the venue does not list once the grace has passed since it was first compared', () => {
    const f = fill('f2', { sinceMs: NOW - GRACE + 1 });
    expect(compareTrades([], [f], NOW, GRACE)).toEqual([]);
    expect(compareTrades([], [f], NOW + 1, GRACE)).toEqual([{ kind: 'chain-only', key: 'fill:f2', fill: f }]);
  });

  it('tells apart the same transaction on another order, and another quantity or price on the same order', () => {
    const other = venue('v4', { orderId: 8n });
    expect(compareTrades([other], [fill('f1')], NOW, GRACE).map((m) => [m.kind, m.key])).toEqual([
      ['venue-only', 'venue:v4'],
      ['chain-only', 'fill:f1'],
    ]);
    const bigger = venue('v5', { quantity: new Decimal('2') });
    expect(compareTrades([bigger], [fill('f1')], NOW, GRACE)).toEqual([
      { kind: 'differs', key: 'venue:v5', venue: bigger, fill: fill('f1') },
    ]);
    const dearer = venue('v6', { price: new Decimal('101.4') });
    expect(compareTrades([dearer], [fill('f1')], NOW, GRACE).map((m) => m.kind)).toEqual(['differs']);
  });

  it('matches two fills of one order in one transaction with two venue trades by their amounts, and a duplicate listing is a mismatch', () => {
    const a = fill('fa', { quantity: new Decimal(1) });
    const b = fill('fb', { quantity: new Decimal(2) });
    const va = venue('va', { quantity: new Decimal(2) });
    const vb = venue('vb', { quantity: new Decimal(1) });
    expect(compareTrades([va, vb], [a, b], NOW, GRACE)).toEqual([]);
    expect(compareTrades([va, vb, venue('vc', { quantity: new Decimal(1) })], [a, b], NOW, GRACE)).toEqual([
      expect.objectContaining({ kind: 'venue-only', key: 'venue:vc' }),
    ]);
  });

  it('matches a fill whose order id the store does not know by transaction, quantity and price', () => {
    expect(compareTrades([venue('v1')], [fill('f1', { orderId: null })], NOW, GRACE)).toEqual([]);
    expect(
      compareTrades([venue('v1')], [fill('f1', { orderId: null, price: new Decimal(99) })], NOW, GRACE).map(
        (m) => m.kind,
      ),
    ).toEqual(['venue-only', 'chain-only']);
  });
});

const WALLET = '0x00000000000000000000000000000000000000aa';
const SCALES = { baseInternal: 10_000n, quoteInternal: 10_000n, baseNative: 10n ** 8n, quoteNative: 10n ** 6n };

function storedFill(fillId: string, txHash: string, quantity: bigint, price: bigint): FillRecord {
  return {
    fillId,
    wallet: WALLET,
    clientOrderId: 1n,
    pairId: 'tp-1',
    side: 'sell',
    role: 'maker',
    quantity,
    price,
    baseDelta: 0n,
    quoteDelta: 0n,
    fee: 0n,
    txHash,
    height: 5n,
    atMs: 0,
  };
}

function venueTrade(id: string, txHash: string, finalityDate: number): VenueTrade {
  return {
    id,
    orderId: 7n,
    transactionHash: txHash,
    baseQuantity: new Decimal('1.5'),
    price: new Decimal('101.3'),
    finalityDate,
    raw: {},
  };
}

describe('TradeCheck', () => {
  it('reports each mismatch once, with the ids in a warning and in the metric by wallet and kind', async () => {
    const clock = new TestClock();
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } });
    const metrics = createMetrics();
    const fills = [storedFill('ours', '0xaa', 15_000n, 1_013_000n), storedFill('lost', '0xbb', 10_000n, 1_000_000n)];
    let listed = [venueTrade('t-ours', '0xAA', clock.now()), venueTrade('t-ghost', '0xcc', clock.now())];
    const check = new TradeCheck({
      wallet: WALLET,
      chain: 'evm',
      source: { getWalletTrades: (address) => Promise.resolve(address === WALLET ? listed : []) },
      orders: {
        fills: () => fills,
        get: () => ({ orderId: 7n }) as StoredOrder,
      },
      scales: (id) => (id === 'tp-1' ? SCALES : undefined),
      graceMs: GRACE,
      clock,
      logger,
      metrics,
    });
    const count = (kind: string) =>
      metricValue(metrics, 'dltmm_trade_reconciliation_mismatches_total', { wallet: WALLET, kind });

    // Within the grace nothing is due.
    expect((await check.check()).mismatches).toEqual([]);
    clock.advance(GRACE);
    const report = await check.check();
    expect(report).toMatchObject({ venueTrades: 2, fills: 2, reported: 2 });
    expect(report.mismatches.map((m) => [m.kind, m.key])).toEqual([
      ['venue-only', 'venue:t-ghost'],
      ['chain-only', 'fill:lost'],
    ]);
    expect(await count('venue-only')).toBe(1);
    expect(await count('chain-only')).toBe(1);
    const warnings = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({ kind: 'venue-only', venueTradeId: 't-ghost', orderId: '7', txHash: '0xcc' }),
      expect.objectContaining({ kind: 'chain-only', fillId: 'lost', orderId: '7', txHash: '0xbb' }),
    ]);

    // The same mismatches again: neither logged nor counted twice.
    clock.advance(GRACE);
    expect((await check.check()).reported).toBe(0);
    expect(await count('venue-only')).toBe(1);
    expect(lines.filter((l) => l.includes('"level":"warn"'))).toHaveLength(2);

    // The venue listing the lost fill later clears it; a new ghost is reported.
    listed = [...listed, venueTrade('t-lost', '0xbb', clock.now() - GRACE)];
    listed[2] = { ...(listed[2] as VenueTrade), baseQuantity: new Decimal(1), price: new Decimal(100) };
    listed.push(venueTrade('t-ghost-2', '0xdd', clock.now() - GRACE));
    const later = await check.check();
    expect(later.mismatches.map((m) => m.key)).toEqual(['venue:t-ghost', 'venue:t-ghost-2']);
    expect(await count('venue-only')).toBe(2);
  });
});
