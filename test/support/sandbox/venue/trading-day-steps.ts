/**
 * What both trading-day tests (manual and accelerated clock) do and check the same way: reading a pair's
 * status and the books' phases, the day's trades and resting day orders on both chains, and the chains' own
 * record of the clearing.
 */
import { scValToNative, xdr } from '@stellar/stellar-sdk';
import type { Sandbox } from '../../../../src/sandbox/venue/start.ts';
import { get, type Json, type Traders } from '../api/sandbox-clients.ts';

export const BOND = 'tp-evm-bond26-eure';
export const FUND = 'tp-wasm-fund1-eure';

/**
 * A trade at 100.5 (chain A) and at 12.4 (chain B), and day orders left resting: a buy at 99 and a sell at
 * 106 on chain A (the sell is what a later buy at 106 meets to trigger a volatility halt), a sell at 12.6 on
 * chain B. Returns the resting orders' ids per chain.
 */
async function tradeAndRest(sb: Sandbox, t: Traders): Promise<{ evm: bigint[]; wasm: bigint[] }> {
  const resting: { evm: bigint[]; wasm: bigint[] } = { evm: [], wasm: [] };
  await t.evmOrder('evm-trader', 'BOND26EURe', 'sell', '1', '100.5');
  await t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '100.5');
  resting.evm.push((await t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '99')).orderId);
  resting.evm.push((await t.evmOrder('evm-trader', 'BOND26EURe', 'sell', '2', '106')).orderId);
  await t.wasmOrder('wasm-trader', 'FUND1EURe', 'sell', '1', '12.4');
  await t.wasmOrder('wasm-mm', 'FUND1EURe', 'buy', '1', '12.4');
  resting.wasm.push((await t.wasmOrder('wasm-trader', 'FUND1EURe', 'sell', '2', '12.6')).orderId);
  await sb.sync();
  return resting;
}

/** Last price and 24 h volume of both pairs, from REST. */
async function lastTrades(sb: Sandbox): Promise<Json[]> {
  const info = async (id: string) => {
    const b = (await get(sb, `/tradingpairs/${id}/tradeinfo`)).body;
    return { lastPrice: b.lastPrice, tradeVolume24h: b.tradeVolume24h };
  };
  return [await info(BOND), await info(FUND)];
}

/** The chains' own record of cancellations on both books: `[order id, cancellation type]` (2 = `ByContract`). */
async function cancellationsOnChain(sb: Sandbox, t: Traders): Promise<{ evm: unknown[][]; wasm: unknown[][] }> {
  const book = t.book('BOND26EURe');
  const cancels = (await book.queryFilter(book.filters.CancelOrder!(), 0)).map((l) => book.interface.parseLog(l)?.args);
  const topic = xdr.ScVal.scvSymbol('CancelOrder').toXDR('base64');
  const events = await t.server.getEvents({
    startLedger: sb.emulator.oldest.seq,
    filters: [
      { type: 'contract', contractIds: [t.pair('FUND1EURe').orderBook.strkey as string], topics: [[topic, '*', '*']] },
    ],
    limit: 1000,
  });
  return {
    evm: cancels.map((a) => [a?.[1], a?.[4]]),
    wasm: events.events.map((e) => [scValToNative(e.topic[2] as xdr.ScVal), (scValToNative(e.value) as unknown[])[2]]),
  };
}

/** What `cancellationsOnChain` shows once every resting day order was cleared. */
const clearedByContract = (resting: { evm: bigint[]; wasm: bigint[] }) => ({
  evm: resting.evm.map((id) => [id, 2n]),
  wasm: resting.wasm.map((id) => [id, 2]),
});

/**
 * The day on `session`'s sandbox (once it has started): reads of a pair's status and of the books' phases, the
 * day's trades and resting day orders (`tradeAndRest`, remembered for `clearedByContract`), and the chains'
 * record of the clearing.
 */
export function tradingDay(session: { readonly sb: Sandbox; readonly t: Traders }) {
  const pair = async (id: string): Promise<Json> => (await get(session.sb, `/tradingpairs/${id}`)).body;
  let resting: { evm: bigint[]; wasm: bigint[] } = { evm: [], wasm: [] };
  return {
    pair,
    statusOf: async (id: string) => {
      const p = await pair(id);
      return [p.tradingStatus, p.statusChangeReason];
    },
    evmPhase: async () => Number(await session.t.book('BOND26EURe').getFunction('getOrderBookPhase').staticCall()),
    wasmPhase: () => session.t.wasmView('FUND1EURe', 'get_order_book_phase'),
    tradeAndRest: async () => {
      resting = await tradeAndRest(session.sb, session.t);
    },
    lastTrades: () => lastTrades(session.sb),
    cancellationsOnChain: () => cancellationsOnChain(session.sb, session.t),
    /** What `cancellationsOnChain` shows once every day order `tradeAndRest` left resting was cleared. */
    clearedByContract: () => clearedByContract(resting),
  };
}
