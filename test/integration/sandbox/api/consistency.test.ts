/**
 * The venue's views agree with the chains after a burst: the simulated market trades on every pair while the
 * participant's wallets place, cross and cancel orders on both chains; then the market is stopped and every
 * view is compared with on-chain state. Resting orders (REST `orderbook`, `pricelevels`, the WebSocket
 * snapshot, the participant's lagged order list) against the contracts' own books, executed volume and last
 * price against the chains' trade events: nothing missing, nothing twice, within the configured lag.
 */
import { scValToNative, xdr } from '@stellar/stellar-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatDecimal } from '../../../../src/core/decimal.ts';
import { priceFromRaw, quantityFromRaw } from '../../../../src/core/units.ts';
import { walletKey, type VenuePair } from '../../../../src/sandbox/api/venue-state.ts';
import { bearer, control, get, until, type Json } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';
import { EventsProbe } from '../../../support/sandbox/events-probe.ts';

const LAG_MS = 500;

interface TruthOrder {
  readonly id: bigint;
  readonly wallet: string;
  readonly side: 'buy' | 'sell';
  readonly price: bigint;
  readonly remaining: bigint;
}

async function evmTruth(p: VenuePair): Promise<TruthOrder[]> {
  const book = session.t.book(p.symbol);
  const out: TruthOrder[] = [];
  for (const [side, code] of [
    ['buy', 1],
    ['sell', 2],
  ] as const) {
    for (const id of (await book.getFunction('getOrderIds').staticCall(code, 10_000)) as bigint[]) {
      const [wallet, , remaining, price] = (await book.getFunction('getOrder').staticCall(id)) as [
        string,
        bigint,
        bigint,
        bigint,
      ];
      out.push({ id, wallet, side, price, remaining });
    }
  }
  return out;
}

function wasmTruth(p: VenuePair): TruthOrder[] {
  const book = session.sb.deployed.wasmBooks.get(p.id)?.book.book;
  if (book === undefined) throw new Error(`no chain B book ${p.id}`);
  return [...book.buys, ...book.sells].map((o) => ({
    id: o.id,
    wallet: o.wallet,
    side: o.side,
    price: o.price,
    remaining: o.remaining,
  }));
}

/** WebSocket levels (JSON numbers of a few decimals here) in the REST form. */
function asRest(levels: Json[]): Json[] {
  return levels.map((l) => ({ quantity: String(l.totalQuantity), limit: String(l.limit), orderCount: l.orderCount }));
}

/** Price levels built from the contract's orders: summed per price, in priority order. */
function levelsOf(
  p: VenuePair,
  truth: readonly TruthOrder[],
  side: 'buy' | 'sell',
): { quantity: string; limit: string; orderCount: number }[] {
  const out: { price: bigint; quantity: bigint; orderCount: number }[] = [];
  for (const o of truth.filter((x) => x.side === side)) {
    const last = out[out.length - 1];
    if (last?.price === o.price) {
      last.quantity += o.remaining;
      last.orderCount += 1;
    } else out.push({ price: o.price, quantity: o.remaining, orderCount: 1 });
  }
  return out.map((l) => ({
    quantity: formatDecimal(quantityFromRaw(l.quantity, p.scales)),
    limit: formatDecimal(priceFromRaw(l.price, p.scales)),
    orderCount: l.orderCount,
  }));
}

/** Executed base quantity and the numbers of trades and cancellations, from the chain's own events. */
async function chainTrades(p: VenuePair): Promise<{ volume: bigint; count: number; cancels: number }> {
  if (p.chain === 'evm') {
    const book = session.t.book(p.symbol);
    const logs = [
      ...(await book.queryFilter(book.filters.NewBuyInitiatedTrade!(), 0)),
      ...(await book.queryFilter(book.filters.NewSellInitiatedTrade!(), 0)),
    ];
    const cancels = (await book.queryFilter(book.filters.CancelOrder!(), 0)).length;
    return {
      volume: logs.reduce((s, l) => s + (book.interface.parseLog(l)?.args[1] as bigint), 0n),
      count: logs.length,
      cancels,
    };
  }
  let volume = 0n;
  let count = 0;
  let cancels = 0;
  const oldest = (await session.t.server.getLatestLedger()).sequence - 5_000;
  for (const name of ['NewBuyInitiatedTrade', 'NewSellInitiatedTrade']) {
    const topic = xdr.ScVal.scvSymbol(name).toXDR('base64');
    const page = await session.t.server.getEvents({
      startLedger: Math.max(oldest, session.sb.emulator.oldest.seq),
      filters: [
        { type: 'contract', contractIds: [p.addresses.orderBook.strkey as string], topics: [[topic, '*', '*']] },
      ],
      limit: 10_000,
    });
    for (const e of page.events) {
      volume += (scValToNative(e.value) as bigint[])[0] as bigint;
      count++;
    }
  }
  const cancelTopic = xdr.ScVal.scvSymbol('CancelOrder').toXDR('base64');
  const start = Math.max(oldest, session.sb.emulator.oldest.seq);
  cancels = (
    await session.t.server.getEvents({
      startLedger: start,
      filters: [
        { type: 'contract', contractIds: [p.addresses.orderBook.strkey as string], topics: [[cancelTopic, '*', '*']] },
      ],
      limit: 10_000,
    })
  ).events.length;
  return { volume, count, cancels };
}

const session = tradersSession({
  api: { orderLagMs: LAG_MS },
  flow: { enabled: true, seed: 7, makerTickMs: 300, takerIntervalMs: 300 },
});

beforeAll(async () => {
  const evmBurst = async () => {
    await session.t.evmApproveAll('evm-trader');
    const sends = [];
    const orders: [string, 'buy' | 'sell', string, string][] = [
      ['BOND26EURe', 'buy', '1', '99'],
      ['BOND26EURe', 'buy', '1.5', '100.5'],
      ['BOND26EURe', 'sell', '2', '101.5'],
      ['BOND26EURe', 'sell', '0.5', '99.5'],
      ['XBOND26EURe', 'buy', '2', '98'],
      ['XBOND26EURe', 'sell', '3', '99.5'],
      ['XBOND26EURe', 'buy', '1', '99'],
      ['BOND26EURe', 'buy', '1', '98.5'],
    ];
    for (const [symbol, side, q, price] of orders)
      sends.push(await session.t.evmSend('evm-trader', symbol, side, q, price));
    const placed = await Promise.all(sends.map((wait) => wait()));
    for (const i of [0, 4, 7]) {
      const [symbol, side] = orders[i] as [string, 'buy' | 'sell', string, string];
      await session.t.evmCancel('evm-trader', symbol, side, placed[i]?.orderId as bigint).catch(() => undefined);
    }
  };
  const wasmBurst = async (wallet: string, symbol: string, orders: ['buy' | 'sell', string, string][]) => {
    await session.t.wasmApprove(wallet, symbol);
    const ids = [];
    for (const [side, q, price] of orders)
      ids.push((await session.t.wasmOrder(wallet, symbol, side, q, price)).orderId);
    await session.t.wasmCancel(wallet, symbol, orders[0]?.[0] ?? 'buy', ids[0] as bigint).catch(() => undefined);
  };
  await Promise.all([
    evmBurst(),
    wasmBurst('wasm-trader', 'FUND1EURe', [
      ['buy', '1', '12.2'],
      ['sell', '1.5', '12.3'],
      ['buy', '2', '12.4'],
      ['sell', '1', '12.6'],
    ]),
    wasmBurst('wasm-mm', 'GRN27EURe', [
      ['sell', '2', '46'],
      ['buy', '3', '45.6'],
      ['sell', '1', '45.3'],
      ['buy', '1', '45'],
    ]),
  ]);
  await control(session.sb, 'POST', '/flow/stop');
  await session.sb.sync();
});

describe('after a burst on both chains', () => {
  it('the simulated market and the burst traded on every pair', async () => {
    const flow = (await control(session.sb, 'GET', '/flow')).body;
    expect([flow.running, flow.stats.failures]).toEqual([false, 0]);
    for (const p of session.sb.state.pairs)
      expect([p.symbol, (await chainTrades(p)).count > 0]).toEqual([p.symbol, true]);
    const cancels = { evm: 0, wasm: 0 };
    for (const p of session.sb.state.pairs) cancels[p.chain] += (await chainTrades(p)).cancels;
    expect(cancels.evm).toBeGreaterThanOrEqual(1);
    expect(cancels.wasm).toBeGreaterThanOrEqual(1);
  });

  it('REST books list exactly the resting orders of the contracts, in priority order', async () => {
    for (const p of session.sb.state.pairs) {
      const truth = p.chain === 'evm' ? await evmTruth(p) : wasmTruth(p);
      const rest = (await get(session.sb, `/tradingpairs/${p.id}/orderbook`)).body;
      for (const side of ['buy', 'sell'] as const) {
        const expected = truth
          .filter((o) => o.side === side)
          .map((o) => ({
            orderType: 'LIMIT',
            quantity: formatDecimal(quantityFromRaw(o.remaining, p.scales)),
            limit: formatDecimal(priceFromRaw(o.price, p.scales)),
          }));
        expect([p.symbol, side, rest[side]]).toEqual([p.symbol, side, expected]);
      }
      expect(p.market.book.buys.concat(p.market.book.sells).map((o) => o.orderId)).toEqual(truth.map((o) => o.id));
      const levels = (await get(session.sb, `/tradingpairs/${p.id}/pricelevels`)).body;
      for (const side of ['buy', 'sell'] as const)
        expect([p.symbol, side, levels[side]]).toEqual([p.symbol, side, levelsOf(p, truth, side)]);
    }
  });

  it("trade volume and last price match the chains' trade events", async () => {
    for (const p of session.sb.state.pairs) {
      const chain = await chainTrades(p);
      const info = (await get(session.sb, `/tradingpairs/${p.id}/tradeinfo`)).body;
      expect([p.symbol, info.tradeVolume24h]).toEqual([
        p.symbol,
        formatDecimal(quantityFromRaw(chain.volume, p.scales)),
      ]);
      const last =
        p.chain === 'evm'
          ? ((await session.t.book(p.symbol).getFunction('getLastPrice').staticCall()) as bigint)
          : (session.sb.deployed.wasmBooks.get(p.id)?.book.book.lastPrice as bigint);
      expect([p.symbol, info.lastPrice]).toEqual([p.symbol, formatDecimal(priceFromRaw(last, p.scales))]);
    }
  });

  it("the participant order list shows exactly the participant's resting orders within the lag", async () => {
    const owned = new Set(session.sb.manifest.wallets.map((w) => walletKey(w.address)));
    const truth: [string, number, string][] = [];
    for (const p of session.sb.state.pairs) {
      for (const o of p.chain === 'evm' ? await evmTruth(p) : wasmTruth(p)) {
        if (owned.has(walletKey(o.wallet)))
          truth.push([p.id, Number(o.id), formatDecimal(quantityFromRaw(o.remaining, p.scales))]);
      }
    }
    expect(truth.length).toBeGreaterThan(3);
    const started = performance.now();
    const list = await until(
      async () =>
        (
          await get(session.sb, `/participants/${session.sb.manifest.venue.participantId}/orders`, bearer(session.sb))
        ).body.items.map((o: Json) => [o.tradingPairId, o.externalOrderId, o.remainingQuantity]),
      (l: Json[]) => JSON.stringify(l.toSorted()) === JSON.stringify(truth.toSorted()),
      'the lagged list to match the chains',
      LAG_MS + 5_000,
    );
    expect(list.toSorted()).toEqual(truth.toSorted());
    expect(performance.now() - started).toBeLessThan(LAG_MS + 5_000);
  });

  it('a WebSocket snapshot of every market equals the REST price levels', async () => {
    const probe = await EventsProbe.open(session.sb.manifest.venue.wsUrl, {
      host: session.sb.manifest.venue.wsHost,
      apiKey: session.sb.manifest.venue.apiKey,
      dateHeader: session.sb.manifest.venue.dateHeader,
      nowMs: session.sb.clock.nowMs(),
    });
    try {
      probe.subscribe('all', 'orderbook/*');
      const data = await probe.waitFor((m) => m.type === 'data', 'snapshot');
      for (const market of data.data) {
        const p = session.sb.state.pairBySymbol(market.symbol) as VenuePair;
        const rest = (await get(session.sb, `/tradingpairs/${p.id}/pricelevels`)).body;
        expect([market.symbol, asRest(market.buy), asRest(market.sell)]).toEqual([market.symbol, rest.buy, rest.sell]);
      }
    } finally {
      probe.close();
    }
  });
});
