/**
 * The oracle operator over a recording transmitter: rounds publish what the decision says, on the sandbox
 * clock it is given; freeze holds a feed's answer, jump publishes a faulty answer that the next round
 * corrects; a failed transmission changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { createOracleOperator, type FeedUpdate } from '../../../../src/sandbox/oracle/operator.ts';

const HOUR = 3_600_000;

function setUp(options: { deviationBps?: number; heartbeatMs?: number } = {}) {
  let now = 1_000_000;
  const values: Record<string, Decimal> = { A: new Decimal('100'), B: new Decimal('2.5') };
  const sent: FeedUpdate[][] = [];
  let failNext = false;
  const op = createOracleOperator(
    [
      { id: 'A', value: () => values.A as Decimal },
      { id: 'B', value: () => values.B as Decimal },
    ],
    4,
    async (updates) => {
      if (failNext) {
        failNext = false;
        throw new Error('node down');
      }
      sent.push([...updates]);
    },
    { nowMs: () => now, ...options },
  );
  return {
    op,
    values,
    sent,
    advance: (ms: number) => (now += ms),
    failNextTransmit: () => (failNext = true),
    answers: () => Object.fromEntries(op.state().map((s) => [s.id, s.answer])),
  };
}

describe('oracle operator', () => {
  it('publishes every feed first, then only the feed that moved beyond the threshold', async () => {
    const t = setUp();
    expect(await t.op.poll()).toEqual([
      { id: 'A', answer: 1_000_000n, reason: 'first' },
      { id: 'B', answer: 25_000n, reason: 'first' },
    ]);
    t.values.A = new Decimal('100.4');
    t.advance(60_000);
    expect(await t.op.poll()).toEqual([]);
    t.values.A = new Decimal('100.6');
    expect(await t.op.poll()).toEqual([{ id: 'A', answer: 1_006_000n, reason: 'deviation' }]);
    expect(t.sent).toEqual([
      [
        { index: 0, answer: 1_000_000n },
        { index: 1, answer: 25_000n },
      ],
      [{ index: 0, answer: 1_006_000n }],
    ]);
  });

  it('publishes an unmoved feed when the heartbeat of sandbox time has passed since its answer', async () => {
    const t = setUp({ heartbeatMs: HOUR });
    await t.op.poll();
    t.advance(HOUR - 1);
    expect(await t.op.poll()).toEqual([]);
    t.advance(1);
    expect((await t.op.poll()).map((u) => u.reason)).toEqual(['heartbeat', 'heartbeat']);
  });

  it('a frozen feed publishes nothing, its answer grows old, and it catches up once unfrozen', async () => {
    const t = setUp();
    await t.op.poll();
    await t.op.freeze('A');
    t.values.A = new Decimal('120');
    t.advance(3 * HOUR);
    expect(await t.op.poll()).toEqual([{ id: 'B', answer: 25_000n, reason: 'heartbeat' }]);
    expect(t.op.state()[0]).toMatchObject({ id: 'A', frozen: true, answer: 1_000_000n, answerAtMs: 1_000_000 });
    t.op.unfreeze();
    expect(await t.op.poll()).toEqual([{ id: 'A', answer: 1_200_000n, reason: 'deviation' }]);
  });

  it('freeze resolves once a round already transmitting has landed, so the state shows the answer that stays', async () => {
    const transmitting = Promise.withResolvers<void>();
    const landed = Promise.withResolvers<void>();
    let now = 1_000;
    const transmit = () => {
      transmitting.resolve();
      return landed.promise;
    };
    const op = createOracleOperator([{ id: 'A', value: () => new Decimal('100') }], 4, transmit, {
      nowMs: () => now,
    });
    const round = op.poll();
    await transmitting.promise;
    let frozen = false;
    const freezing = op.freeze('A').then(() => (frozen = true));
    await Promise.resolve();
    expect(frozen).toBe(false);
    now = 3_000;
    landed.resolve();
    await Promise.all([round, freezing]);
    expect(op.state()[0]).toMatchObject({ frozen: true, answer: 1_000_000n, answerAtMs: 3_000 });
    expect(await op.poll()).toEqual([]);
  });

  it('freeze without a feed id freezes every feed', async () => {
    const t = setUp();
    await t.op.freeze();
    expect(await t.op.poll()).toEqual([]);
    expect(t.sent).toEqual([]);
  });

  it('a jump publishes at once an answer bps away from the true value; the next round corrects it', async () => {
    const t = setUp({ deviationBps: 500 });
    await t.op.poll();
    expect(await t.op.jump(-300, 'A')).toEqual([{ id: 'A', answer: 970_000n, reason: 'jump' }]);
    expect(t.op.state()[0]).toMatchObject({ answer: 970_000n, faulty: true, reason: 'jump' });
    // 300 bp is within this feed's 500 bp threshold: only the fault makes the next round publish.
    expect(await t.op.poll()).toEqual([{ id: 'A', answer: 1_000_000n, reason: 'correction' }]);
    expect(t.op.state()[0]).toMatchObject({ answer: 1_000_000n, faulty: false, updates: 3 });
  });

  it('a failed transmission records nothing, so the next round tries the same update again', async () => {
    const t = setUp();
    t.failNextTransmit();
    await expect(t.op.poll()).rejects.toThrow(/node down/);
    expect(t.answers()).toEqual({ A: null, B: null });
    expect((await t.op.poll()).map((u) => u.reason)).toEqual(['first', 'first']);
  });

  it('start publishes the first answers before it resolves; stop ends the checks', async () => {
    const t = setUp();
    await t.op.start();
    expect(t.answers()).toEqual({ A: 1_000_000n, B: 25_000n });
    await t.op.stop();
  });

  it('refuses an unknown feed id and duplicate feed ids', () => {
    const t = setUp();
    expect(() => t.op.freeze('C')).toThrow(/no oracle feed C/);
    expect(() =>
      createOracleOperator(
        [
          { id: 'A', value: () => new Decimal(1) },
          { id: 'A', value: () => new Decimal(1) },
        ],
        8,
        async () => undefined,
        { nowMs: () => 0 },
      ),
    ).toThrow(/distinct/);
  });
});
