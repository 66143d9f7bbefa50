import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventStore, eventId, parseCursor, type StoredEvent } from '../../../../src/sandbox/wasm/events-store.ts';

function ev(ledger: number, txIndex: number, eventIndex: number, topic: string[], contractId = 'CA'): StoredEvent {
  const pos = { ledger, txIndex, opIndex: 0, eventIndex };
  return {
    ...pos,
    id: eventId(pos),
    contractId,
    topicB64: topic,
    valueB64: '',
    txHash: '',
    ledgerClosedAt: '',
    topics: [],
    data: { type: 1 },
  };
}

describe('event ids and cursors', () => {
  it('format as %019d-%010d of (ledger << 32 | tx << 12 | op) and the event index, and parse back', () => {
    expect(eventId({ ledger: 1, txIndex: 1, opIndex: 0, eventIndex: 2 })).toBe('0000000004294971392-0000000002');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 0xfffff }),
        fc.integer({ min: 0, max: 0xfff }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        (ledger, txIndex, opIndex, eventIndex) => {
          const p = { ledger, txIndex, opIndex, eventIndex };
          expect(parseCursor(eventId(p))).toEqual(p);
        },
      ),
    );
  });

  it('refuses text that is not a cursor', () => {
    expect([parseCursor('abc'), parseCursor('1-'), parseCursor('12-99999999999')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

const f = (contractIds: string[], topics: string[][]) => [{ types: new Set<string>(), contractIds, topics }];

describe('the event store', () => {
  const store = new EventStore();
  for (let l = 10; l < 20; l++)
    for (let i = 0; i < 3; i++) store.add(ev(l, 1, i, ['a', String(i)], l % 2 === 0 ? 'CA' : 'CB'));

  it('starts at a position (inclusive), stops before the end ledger and at the limit', () => {
    const got = store.query({ ledger: 12, txIndex: 1, opIndex: 0, eventIndex: 1 }, 14, [], 100);
    expect(got.map((e) => [e.ledger, e.eventIndex])).toEqual([
      [12, 1],
      [12, 2],
      [13, 0],
      [13, 1],
      [13, 2],
    ]);
    expect(store.query({ ledger: 10, txIndex: 0, opIndex: 0, eventIndex: 0 }, 99, [], 4)).toHaveLength(4);
  });

  it('matches contract ids and topic segments with * and a trailing **', () => {
    const from = { ledger: 10, txIndex: 0, opIndex: 0, eventIndex: 0 };
    expect(store.query(from, 99, f(['CB'], []), 100).every((e) => e.contractId === 'CB')).toBe(true);
    expect(store.query(from, 99, f([], [['a', '2']]), 100)).toHaveLength(10);
    expect(store.query(from, 99, f([], [['*', '*']]), 100)).toHaveLength(30);
    expect(store.query(from, 99, f([], [['a']]), 100)).toHaveLength(0);
    expect(store.query(from, 99, f([], [['a', '**']]), 100)).toHaveLength(30);
    expect(store.query(from, 99, [{ types: new Set(['system']), contractIds: [], topics: [] }], 100)).toHaveLength(0);
  });

  it('forgets ledgers before the retention window', () => {
    store.trim(18);
    expect(store.query({ ledger: 1, txIndex: 0, opIndex: 0, eventIndex: 0 }, 99, [], 100).map((e) => e.ledger)).toEqual(
      [18, 18, 18, 19, 19, 19],
    );
  });
});
