/** getEvents filters for a wallet, five to a request, and the order of event ids and cursors. */
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { derivePairRules } from '../../../../src/core/rules.ts';
import type { PairBinding } from '../../../../src/chains/types.ts';
import { filterGroups } from '../../../../src/chains/wasm/follower.ts';
import { compareIds, endOfLedgerCursor, eventId, ledgerOfEventId } from '../../../../src/chains/wasm/tx-events.ts';
import { pairWith } from '../../../support/pairs.ts';

const rules = derivePairRules(pairWith('wasm-pair'));
const contract = (n: number) => StrKey.encodeContract(Buffer.alloc(32, n));
const pairOf = (i: number, quote = contract(200)): PairBinding => ({
  pairId: `p${i}`,
  symbol: `P${i}`,
  chain: 'wasm',
  orderBook: contract(i + 1),
  baseToken: contract(i + 100),
  quoteToken: quote,
  rules,
});

describe('filter groups', () => {
  it('one request for a pair: its order book by client topic, its two tokens by transfer from or to the wallet', () => {
    const groups = filterGroups(Keypair.random().publicKey(), [pairOf(0)]);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.map((f) => [(f.contractIds as string[]).length, (f.topics as string[][]).length])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('at most five contract ids per filter and five filters per request; a shared quote token once', () => {
    const groups = filterGroups(
      Keypair.random().publicKey(),
      Array.from({ length: 13 }, (_, i) => pairOf(i)),
    );
    // 13 books in 3 filters, 14 distinct tokens in 3 filters: two requests.
    expect(groups.map((g) => g.length)).toEqual([5, 1]);
    const ids = groups.flat().flatMap((f) => f.contractIds as string[]);
    expect(ids).toHaveLength(27);
    expect(new Set(ids).size).toBe(27);
    expect(groups.flat().every((f) => (f.contractIds as string[]).length <= 5)).toBe(true);
  });
});

describe('event ids', () => {
  it('orders ids and cursors by operation then event index, and names their ledger', () => {
    const a = eventId(1000, 1, 0, 2);
    const b = eventId(1000, 2, 0, 0);
    const end = endOfLedgerCursor(1000);
    expect([compareIds(a, b), compareIds(b, end), compareIds(end, eventId(1001, 0, 0, 0)), compareIds(a, a)]).toEqual([
      -1, -1, -1, 0,
    ]);
    expect([a, end].map(ledgerOfEventId)).toEqual([1000, 1000]);
    expect(ledgerOfEventId('nope')).toBeNull();
    expect(a).toMatch(/^\d{19}-\d{10}$/);
  });
});
