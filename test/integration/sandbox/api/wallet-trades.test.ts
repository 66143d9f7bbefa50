/**
 * A wallet's trades on the real sandbox REST server on loopback: trades made on both chains are listed by
 * `GET /wallets/{address}/trades` and read by the bot's REST client (every page); the trade reconciliation fed
 * with the chain's own trade events finds nothing wrong, and a trade injected by `POST /sandbox/trades` (one no
 * chain had) raises `dltmm_trade_reconciliation_mismatches_total{kind="venue-only"}` once the grace has passed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { TradeCheck } from '../../../../src/engine/wallet/trades/trade-check.ts';
import type { FillRecord } from '../../../../src/store/order-rows.ts';
import type { StoredOrder } from '../../../../src/store/order-store.ts';
import { createLogger } from '../../../../src/telemetry/logger.ts';
import { createMetrics } from '../../../../src/telemetry/metrics.ts';
import { TestClock } from '../../../support/clock.ts';
import { control, until } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';

const ids: Record<string, bigint> = {};
const BOND = 'BOND26EURe';

const session = tradersSession();

beforeAll(async () => {
  await Promise.all([
    (async () => {
      await Promise.all([session.t.evmApproveAll('evm-trader'), session.t.evmApproveAll('evm-mm')]);
      ids.sell = (await session.t.evmOrder('evm-trader', BOND, 'sell', '2', '100.5')).orderId;
      ids.buy1 = (await session.t.evmOrder('evm-mm', BOND, 'buy', '0.5', '100.5')).orderId;
      ids.buy2 = (await session.t.evmOrder('evm-mm', BOND, 'buy', '1', '100.5')).orderId;
    })(),
    (async () => {
      await Promise.all([
        session.t.wasmApprove('wasm-trader', 'FUND1EURe'),
        session.t.wasmApprove('wasm-mm', 'FUND1EURe'),
      ]);
      ids.wsell = (await session.t.wasmOrder('wasm-trader', 'FUND1EURe', 'sell', '1', '12.5')).orderId;
      ids.wbuy = (await session.t.wasmOrder('wasm-mm', 'FUND1EURe', 'buy', '0.5', '12.5')).orderId;
    })(),
  ]);
}, 120_000);

/** Our fills as the chain has them: the trade events of the wallet's orders (taker) on the chain A book. */
async function chainFills(wallet: string): Promise<FillRecord[]> {
  const book = session.t.book(BOND);
  const logs = await book.queryFilter(book.filters.NewBuyInitiatedTrade!());
  return logs.flatMap((log) => {
    const parsed = book.interface.parseLog(log);
    if (parsed === null || String(parsed.args.client).toLowerCase() !== wallet.toLowerCase()) return [];
    const orderId = parsed.args.orderId as bigint;
    return [
      {
        fillId: `${log.transactionHash}:${orderId}`,
        wallet,
        clientOrderId: orderId,
        pairId: session.sb.state.pairBySymbol(BOND)!.id,
        side: 'buy',
        role: 'taker',
        quantity: parsed.args.quantity as bigint,
        price: parsed.args.price as bigint,
        baseDelta: 0n,
        quoteDelta: 0n,
        fee: 0n,
        txHash: log.transactionHash,
        height: BigInt(log.blockNumber),
        atMs: 0,
      } satisfies FillRecord,
    ];
  });
}

describe('wallet trades on the sandbox', () => {
  it('lists the trades of both chains, read by the client with every page, and final once the venue says so', async () => {
    const evmMm = session.t.wallet('evm-mm').address;
    const trades = await until(
      () => session.client.getWalletTrades(evmMm, { pageSize: 1 }),
      (list) => list.length === 2 && list.every((x) => x.finalityDate !== undefined),
      'both chain A trades listed and final',
    );
    expect(
      trades.map((x) => [x.orderId, x.transactionType, x.baseQuantity.toFixed(), x.price.toFixed(), x.baseSymbol]),
    ).toEqual([
      [ids.buy1, 'BUY', '0.5', '100.5', 'BOND26'],
      [ids.buy2, 'BUY', '1', '100.5', 'BOND26'],
    ]);
    expect(trades.every((x) => /^0x[0-9a-f]{64}$/.test(x.transactionHash))).toBe(true);
    const seller = await session.client.getWalletTrades(session.t.wallet('evm-trader').address);
    expect(seller.map((x) => [x.orderId, x.transactionType, x.baseQuantity.toFixed()])).toEqual([
      [ids.sell, 'SELL', '0.5'],
      [ids.sell, 'SELL', '1'],
    ]);
    const wasm = await until(
      () => session.client.getWalletTrades(session.t.wallet('wasm-mm').address),
      (list) => list.length === 1,
      'the chain B trade listed',
    );
    expect(
      wasm.map((x) => [x.orderId, x.baseQuantity.toFixed(), x.price.toFixed(), x.finalityDate !== undefined]),
    ).toEqual([[ids.wbuy, '0.5', '12.5', true]]);
  }, 60_000);

  it('finds the chain and the venue in agreement, and an injected trade the chain never had is a venue-only mismatch', async () => {
    const wallet = session.t.wallet('evm-mm').address;
    const fills = await chainFills(wallet);
    expect(fills).toHaveLength(2);
    // The check runs on the venue's time (the sandbox clock), moved on by hand past each grace.
    const clock = new TestClock(session.sb.clock.nowMs());
    const metrics = createMetrics();
    const lines: string[] = [];
    const pair = session.sb.state.pairBySymbol(BOND)!;
    const check = new TradeCheck({
      wallet,
      chain: 'evm',
      source: session.client,
      orders: { fills: () => fills, get: (_w, cid) => ({ orderId: cid }) as StoredOrder },
      scales: (id) => (id === pair.id ? pair.scales : undefined),
      graceMs: 30_000,
      clock,
      logger: createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } }),
      metrics,
    });
    const count = (kind: string) =>
      metricValue(metrics, 'dltmm_trade_reconciliation_mismatches_total', { wallet, kind });
    await check.check();
    // Every listed trade and every fill is due now: all of them matched.
    clock.advance(30_000);
    expect((await check.check()).mismatches).toEqual([]);

    const injected = await control(session.sb, 'POST', '/trades', {
      wallet,
      pair: BOND,
      side: 'sell',
      quantity: '3',
      price: '101',
      orderId: '999',
    });
    expect(injected.status).toBe(200);
    // Listed, but its grace has not passed yet.
    const report = await check.check();
    expect(report.mismatches).toEqual([]);
    expect(await count('venue-only')).toBe(0);
    // Final at the venue since it was injected: a mismatch once the grace has passed.
    clock.advance(Math.max(0, session.sb.clock.nowMs() - clock.now()) + 30_000);
    const later = await check.check();
    expect(later.mismatches.map((m) => [m.kind, m.venue?.orderId, m.venue?.quantity.eq(new Decimal(3))])).toEqual([
      ['venue-only', 999n, true],
    ]);
    expect(await count('venue-only')).toBe(1);
    expect(await count('chain-only')).toBe(0);
    expect(lines.filter((l) => l.includes(`"venueTradeId":"${String(injected.body.id)}"`))).toHaveLength(1);
  }, 60_000);
});
