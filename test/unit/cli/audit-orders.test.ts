/**
 * Surveillance records: `dlt-mm audit export` writes every order event of the day with its UTC time to the
 * microsecond, the algorithm identifier its order was sent with, the strategy and its file's hash and the
 * decision's inputs; and per pair the day's order-to-trade and cancel-to-fill ratios and median quote lifetime.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoMicros } from '../../../src/cli/commands/audit-orders.ts';
import { main } from '../../../src/cli/main.ts';
import { toVenueLocal } from '../../../src/core/calendar.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { wallMicros } from '../../../src/core/system-clock.ts';
import { priceToRaw, quantityToRaw } from '../../../src/core/units.ts';
import type { PlaceOrder } from '../../../src/engine/wallet/orders/order-manager.ts';
import { fileCliIo } from '../../support/cli-io.ts';
import { harness, start, TAKER, type Harness } from '../../support/engine/harness.ts';

const decision = {
  pairId: 'tp-evm-bond-eure',
  strategy: 'ladder',
  configHash: 'f00d',
  params: { spreadBps: 20 },
  market: { reference: '100', bestBid: null },
  risk: { mode: 'active' },
};

const order = (side: 'buy' | 'sell', price: string): PlaceOrder => ({
  pairId: 'tp-evm-bond-eure',
  side,
  quantity: new Decimal('1'),
  price: new Decimal(price),
  reporting: { a: 21, b: 7, free: 0n },
  decision,
});

/** A quote filled by a taker and one cancelled, a second apart each, on the harness's chain. */
async function aDay(h: Harness) {
  const filled = await h.engine.place(order('sell', '100.5'));
  const cancelled = await h.engine.place(order('buy', '99.5'));
  await h.block();
  h.clock.advance(2_000);
  const s = h.pair.rules.scales;
  h.venue.place(TAKER, h.pair.pairId, 'buy', quantityToRaw(new Decimal(1), s), priceToRaw(new Decimal('100.5'), s));
  await h.block();
  h.clock.advance(4_000);
  await h.engine.cancel(cancelled.clientOrderId);
  await h.block();
  return { filled, cancelled };
}

describe('the audit export of order events', () => {
  it('writes each order event with its microsecond time, algorithm identifier, strategy hash and inputs', async () => {
    const h = await harness();
    await start(h);
    const { filled, cancelled } = await aDay(h);
    h.store.obligations.savePair({
      pairId: h.pair.pairId,
      symbol: h.pair.symbol,
      chain: 'evm',
      wallet: 'w',
      scales: {
        baseInternal: h.pair.rules.scales.baseInternal.toString(),
        quoteInternal: h.pair.rules.scales.quoteInternal.toString(),
        baseNative: h.pair.rules.scales.baseNative.toString(),
        quoteNative: h.pair.rules.scales.quoteNative.toString(),
      },
      obligations: null,
      calendar: {},
    });
    const dir = join(h.path, '..');
    writeFileSync(join(dir, 'bot.yaml'), `sandbox: { manifest: m.json }\nstore: { path: ${h.path} }\n`);
    const out: string[] = [];
    const day = toVenueLocal(h.clock.now()).date;
    expect(await main(['audit', 'export', '--config', 'bot.yaml', '--day', day], fileCliIo(dir, out))).toBe(0);
    const rows = readFileSync(join(dir, 'audit', `dlt-mm-audit-${day}-order-events.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const of = (cid: bigint) => rows.filter((r) => r.clientOrderId === cid.toString());
    expect(of(filled.clientOrderId).map((r) => r.toStatus)).toEqual(['submitting', 'received', 'resting', 'filled']);
    expect(of(cancelled.clientOrderId).map((r) => r.event)).toContain('CancelSent');
    for (const r of rows) {
      expect(r.timeUtc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(r).toMatchObject({
        ownerReportingId: 21,
        decisionReportingId: 7,
        strategy: 'ladder',
        strategyHash: 'f00d',
        symbol: h.pair.symbol,
        decisionInputs: { market: decision.market, risk: decision.risk },
      });
    }
    expect(of(filled.clientOrderId)[0]).toMatchObject({ side: 'sell', price: '100.5', quantity: '1' });
    const csv = readFileSync(join(dir, 'audit', `dlt-mm-audit-${day}-order-events.csv`), 'utf8')
      .trim()
      .split('\n');
    expect(csv).toHaveLength(rows.length + 1);
    const pairs = readFileSync(join(dir, 'audit', `dlt-mm-audit-${day}-pairs.csv`), 'utf8')
      .trim()
      .split('\n');
    // Three messages (two placements, one cancellation), one cancellation and one trade; the filled quote rested
    // two seconds, the cancelled one six: the median of the two is four.
    expect(pairs[1]).toBe(`${h.pair.pairId},${h.pair.symbol},3,1,1,3.00,1.00,4.000`);
  });

  it('gives the wall clock in microseconds within the millisecond Date.now reads, never going back', () => {
    let last = 0;
    for (let i = 0; i < 200_000; i++) {
      const before = Date.now();
      const us = wallMicros();
      const after = Date.now();
      expect(us).toBeGreaterThanOrEqual(before * 1000);
      expect(us).toBeLessThan((after + 1) * 1000);
      expect(us).toBeGreaterThanOrEqual(last);
      last = us;
    }
    expect(isoMicros(1_700_000_000_123_456)).toBe('2023-11-14T22:13:20.123456Z');
  });
});
