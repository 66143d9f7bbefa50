import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import type { PairScales } from '../../../../src/core/units.ts';
import { PnlTracker } from '../../../../src/engine/loop/pnl-tracker.ts';
import type { SequencedFill } from '../../../../src/store/evaluation-store.ts';

const SCALES: PairScales = { baseInternal: 1n, quoteInternal: 1n, baseNative: 1n, quoteNative: 1n };

/** A fill source as the store gives it: rows by sequence, and a count of rows a reorganisation withdrew. */
function source() {
  const rows: SequencedFill[] = [];
  let dropped = 0;
  let reads = 0;
  return {
    add(seq: number, side: 'buy' | 'sell', quantity: bigint, price: bigint) {
      rows.push({
        seq,
        level: 0,
        fill: {
          fillId: `f${seq}-${rows.length}`,
          wallet: 'w',
          clientOrderId: BigInt(seq),
          pairId: 'p',
          side,
          role: 'maker',
          quantity,
          price,
          baseDelta: side === 'buy' ? quantity : -quantity,
          quoteDelta: side === 'buy' ? -quantity * price : quantity * price,
          fee: 0n,
          txHash: '0x',
          height: 1n,
          atMs: 0,
        },
      });
    },
    drop(seq: number) {
      rows.splice(
        rows.findIndex((r) => r.seq === seq),
        1,
      );
      dropped += 1;
    },
    get reads() {
      return reads;
    },
    fills: {
      after: (seq: number) => {
        const out = rows.filter((r) => r.seq > seq);
        reads += out.length;
        return out;
      },
      dropped: () => dropped,
    },
  };
}

describe('the PnL tracker', () => {
  it('reads each fill once, from the last one applied on', () => {
    const s = source();
    const t = new PnlTracker(s.fills, SCALES);
    s.add(1, 'buy', 2n, 100n);
    t.update(new Decimal(101));
    s.add(2, 'sell', 1n, 103n);
    t.update(new Decimal(101));
    t.update(new Decimal(101));
    expect({
      reads: s.reads,
      fills: t.fills,
      position: t.position.toFixed(),
      total: t.total(new Decimal(101)).toFixed(),
    }).toEqual({
      reads: 2,
      fills: 2,
      position: '1',
      // realised (103 - 100) × 1, unrealised (101 - 100) × 1
      total: '4',
    });
  });

  it('starts over when a reorganisation withdraws a fill, so the next fill counts though it takes the row id', () => {
    const s = source();
    const t = new PnlTracker(s.fills, SCALES);
    s.add(1, 'buy', 2n, 100n);
    s.add(2, 'buy', 5n, 90n);
    t.update(null);
    s.drop(2);
    s.add(2, 'sell', 1n, 104n);
    t.update(null);
    expect({ fills: t.fills, position: t.position.toFixed(), realised: t.state.realised.toFixed() }).toEqual({
      fills: 2,
      position: '1',
      realised: '4',
    });
  });
});
