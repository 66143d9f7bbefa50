/**
 * The wallet order lists with `only_open=false`, on a running sandbox after real orders on both chains: a
 * filled and a cancelled order are listed with their status and reason, and every record carries the further
 * fields of the venue SDK's model, with the cross identifier and reporting values the orders were sent with
 * (encoded by the bot's own order codec). The bot's REST client reads them back.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, get, until, type Json } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';

const ids: Record<string, bigint> = {};
const BOND = 'tp-evm-bond26-eure';
const FUND = 'tp-wasm-fund1-eure';
// A Tuesday, 11:00 in Frankfurt: the trading day closes at 17:00 local, 16:00 UTC.
const START = '2026-03-03T10:00:00.000Z';
const CLOSE = '2026-03-03T16:00:00.000Z';
const OURS = { crossId: 0xd1_000001n, reporting: { a: 21, b: 1, free: 0n } };

const history = (wallet: string) => get(session.sb, `/wallets/${wallet}/orders?only_open=false`, bearer(session.sb));

const session = tradersSession({ trading: { mode: 'calendar' }, clock: { mode: 'manual', start: START } });

beforeAll(async () => {
  await Promise.all([
    (async () => {
      await Promise.all([session.t.evmApproveAll('evm-trader'), session.t.evmApproveAll('evm-mm')]);
      ids.filled = (await session.t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '99.5', OURS)).orderId;
      ids.taker = (
        await session.t.evmOrder('evm-trader', 'BOND26EURe', 'sell', '1', '99.5', {
          crossId: 7n,
          reporting: { a: 3, b: 4, free: 0n },
        })
      ).orderId;
      ids.cancelled = (
        await session.t.evmOrder('evm-mm', 'BOND26EURe', 'sell', '2', '101', {
          crossId: 0xd1_000002n,
          reporting: { a: 21, b: 2, free: 0n },
        })
      ).orderId;
      await session.t.evmCancel('evm-mm', 'BOND26EURe', 'sell', ids.cancelled);
      ids.open = (
        await session.t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '98', { ...OURS, crossId: 0xd1_000004n })
      ).orderId;
    })(),
    (async () => {
      await session.t.wasmApprove('wasm-mm', 'FUND1EURe');
      ids.wasm = (
        await session.t.wasmOrder(
          'wasm-mm',
          'FUND1EURe',
          'buy',
          '1',
          '12.2',
          {},
          {
            crossId: 0xd1_000003n,
            reporting: { a: 21, b: 3, free: 0n },
          },
        )
      ).orderId;
      await session.t.wasmCancel('wasm-mm', 'FUND1EURe', 'buy', ids.wasm);
    })(),
  ]);
  await session.sb.sync();
  // The lists lag the chain by the configured 300 ms.
  await until(
    () => history(session.t.wallet('evm-mm').address),
    (r) =>
      r.body.items?.length === 3 &&
      r.body.items.every((o: Json) => o.status !== 'OPEN' || o.externalOrderId === Number(ids.open)),
    'lagged order history',
  );
});

describe('orders with only_open=false', () => {
  it('lists the filled and the cancelled order beside the open one, with the further fields as sent', async () => {
    const wallet = session.t.wallet('evm-mm').address;
    const { body } = await history(wallet);
    expect(body.items.map((o: Json) => [o.externalOrderId, o.status, o.statusReason, o.remainingQuantity])).toEqual([
      [Number(ids.filled), 'FILLED', 'N_A', '0'],
      [Number(ids.cancelled), 'CANCELLED', 'BY_PARTICIPANT', '2'],
      [Number(ids.open), 'OPEN', 'N_A', '1'],
    ]);
    const [filled, cancelled] = body.items as Json[];
    expect(filled).toMatchObject({
      initialQuantity: '1',
      ownerReportingData: { ownerReportingId: 21, decisionReportingId: 1 },
      crossIdentifier: 0xd1_000001,
      validUntil: CLOSE,
      executionCondition: 'NONE',
      address: wallet,
    });
    expect(cancelled).toMatchObject({
      ownerReportingData: { ownerReportingId: 21, decisionReportingId: 2 },
      crossIdentifier: 0xd1_000002,
      statusChangeTime: cancelled.modificationDate,
    });
    // The default, only_open=true, lists the open one alone.
    const open = (await get(session.sb, `/wallets/${wallet}/orders`, bearer(session.sb))).body.items;
    expect(open.map((o: Json) => o.externalOrderId)).toEqual([Number(ids.open)]);
    // The incoming order that matched in full never rested, and is listed filled all the same.
    const taker = (await history(session.t.wallet('evm-trader').address)).body.items;
    expect(taker).toMatchObject([
      {
        externalOrderId: Number(ids.taker),
        status: 'FILLED',
        crossIdentifier: 7,
        ownerReportingData: { ownerReportingId: 3, decisionReportingId: 4 },
      },
    ]);
  });

  it('serves chain B records with the reporting values read from its own layout', async () => {
    const items = (await history(session.t.wallet('wasm-mm').address)).body.items;
    expect(items).toMatchObject([
      {
        tradingPairId: FUND,
        externalOrderId: Number(ids.wasm),
        status: 'CANCELLED',
        statusReason: 'BY_PARTICIPANT',
        crossIdentifier: 0xd1_000003,
        ownerReportingData: { ownerReportingId: 21, decisionReportingId: 3 },
        address: session.t.wallet('wasm-mm').address,
      },
    ]);
  });

  it("is read by the bot's REST client with onlyOpen: false", async () => {
    const orders = await session.client.getWalletOrders(session.t.wallet('evm-mm').address, {
      onlyOpen: false,
      tradingPair: BOND,
    });
    expect(
      orders.map((o) => [o.externalOrderId, o.status, o.statusReason, o.crossIdentifier, o.ownerReportingData]),
    ).toEqual([
      [ids.filled, 'FILLED', 'N_A', 0xd1_000001n, { ownerReportingId: 21, decisionReportingId: 1 }],
      [ids.cancelled, 'CANCELLED', 'BY_PARTICIPANT', 0xd1_000002n, { ownerReportingId: 21, decisionReportingId: 2 }],
      [ids.open, 'OPEN', 'N_A', 0xd1_000004n, { ownerReportingId: 21, decisionReportingId: 1 }],
    ]);
    expect(orders[0]).toMatchObject({ validUntil: CLOSE, executionCondition: 'NONE' });
    expect(
      (await session.client.getWalletOrders(session.t.wallet('evm-mm').address)).map((o) => o.externalOrderId),
    ).toEqual([ids.open]);
  });
});
