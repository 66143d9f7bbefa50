/**
 * Reconciliation asks the venue's list of ended orders (`only_open=false`) about an order the store holds
 * resting that the open list no longer shows. The venue's word settles it only where the chain cannot answer,
 * and only for a record that is ours (order id, pair and cross identifier) with a status that says it ended;
 * it never makes a fill, and the chain's answer, when there is one, prevails.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../../src/core/decimal.ts';
import type { VenueOrder } from '../../../../../src/venue/payload/orders.ts';
import { harness, start, WALLET, type Harness } from '../../../../support/engine/harness.ts';

const PAIR = 'tp-evm-bond-eure';

interface Scene {
  readonly h: Harness;
  readonly clientOrderId: bigint;
  readonly orderId: bigint;
  readonly asked: string[];
}

/** One resting sell of ours that the venue's open list no longer shows; `ended` is the venue's list of ended orders. */
async function scene(
  ended: (orderId: bigint, crossId: bigint) => VenueOrder[] | Error,
  chainAnswers: boolean,
): Promise<Scene> {
  const asked: string[] = [];
  let history: VenueOrder[] | Error = [];
  const h = await harness({
    engine: {
      rest: {
        walletOrders: async () => [],
        walletOrderHistory: async (address, pairId) => {
          asked.push(`${address} ${pairId}`);
          if (history instanceof Error) throw history;
          return history;
        },
      },
    },
  });
  await start(h);
  const p = await h.engine.place({ pairId: PAIR, side: 'sell', quantity: new Decimal('1'), price: new Decimal('101') });
  await h.block();
  const orderId = h.store.orders.get(WALLET, p.clientOrderId)?.orderId as bigint;
  history = ended(orderId, p.clientOrderId);
  if (!chainAnswers)
    h.adapter.probeOrder = async () => ({ onBook: null, height: 0n, reason: 'the node did not answer' });
  h.clock.advance(10_000);
  asked.length = 0;
  return { h, clientOrderId: p.clientOrderId, orderId, asked };
}

const record = (orderId: bigint, over: Record<string, unknown>): VenueOrder => ({
  externalOrderId: orderId,
  tradingPairId: PAIR,
  ...over,
  raw: { externalOrderId: Number(orderId), tradingPairId: PAIR, ...over },
});

describe("the venue's list of ended orders in reconciliation", () => {
  it('the chain cannot say and the venue lists our order filled: it is no longer treated as live, and no fill is made up', async () => {
    const s = await scene(
      (id, cross) => [
        record(id + 1n, { status: 'CANCELLED', crossIdentifier: cross + 1n }),
        record(id, { status: 'FILLED', statusReason: 'N_A', crossIdentifier: cross }),
      ],
      false,
    );
    const report = await start(s.h);
    expect(report.discrepancies).toMatchObject([
      { kind: 'not-listed', clientOrderId: s.clientOrderId, repair: 'venue-ended' },
    ]);
    expect(s.asked).toEqual([`${WALLET} ${PAIR}`]);
    expect(s.h.store.orders.get(WALLET, s.clientOrderId)).toMatchObject({
      status: 'cancelRequested',
      cancelTxHash: null,
      filled: 0n,
    });
    // Never cancelled again: its fill events, when the chain delivers them, settle it.
    await expect(s.h.engine.cancel(s.clientOrderId)).rejects.toMatchObject({ code: 'E_ORDER_STATE' });
    const said = s.h.logs.find((l) => String(l.msg).includes('the venue lists it FILLED'));
    expect(said).toMatchObject({ venueStatus: 'FILLED', venueReason: 'N_A', chainReason: 'the node did not answer' });
  });

  it('a record that is not ours, or a status the bot does not know, settles nothing: the next reconciliation asks again', async () => {
    const cases: Array<(cross: bigint) => Record<string, unknown>> = [
      (cross) => ({ status: 'CANCELLED', statusReason: 'BY_CONTRACT', crossIdentifier: cross + 7n }),
      (cross) => ({ status: 'SUSPENDED', statusReason: 'CAPACITY_LIMIT_HALT', crossIdentifier: cross }),
    ];
    for (const over of cases) {
      const s = await scene((id, cross) => [record(id, over(cross))], false);
      const report = await start(s.h);
      expect(report.discrepancies.map((d) => d.repair)).toEqual(['unanswered']);
      expect(s.h.store.orders.get(WALLET, s.clientOrderId)?.status).toBe('resting');
    }
  });

  it('the chain says the order rests while the venue lists it cancelled: the chain prevails, and the disagreement is said', async () => {
    const s = await scene(
      (id, cross) => [record(id, { status: 'CANCELLED', statusReason: 'BY_ADMIN', crossIdentifier: cross })],
      true,
    );
    const report = await start(s.h);
    expect(report.discrepancies.map((d) => d.repair)).toEqual(['venue-behind']);
    expect(s.h.store.orders.get(WALLET, s.clientOrderId)?.status).toBe('resting');
    expect(s.h.logs.find((l) => String(l.msg).includes('the chain prevails'))).toMatchObject({
      venueStatus: 'CANCELLED',
      venueReason: 'BY_ADMIN',
    });
  });

  it('a venue that does not answer leaves the decision to the chain, and reconciliation goes on', async () => {
    const s = await scene(() => new Error('503 from the venue'), false);
    const report = await start(s.h);
    expect(report.discrepancies.map((d) => d.repair)).toEqual(['unanswered']);
    expect(s.h.store.orders.get(WALLET, s.clientOrderId)?.status).toBe('resting');
    expect(s.h.logs.some((l) => String(l.msg).startsWith("could not read the venue's list of ended orders"))).toBe(
      true,
    );
  });
});
