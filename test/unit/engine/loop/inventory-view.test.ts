import { describe, expect, it } from 'vitest';
import type { PairBinding } from '../../../../src/chains/types.ts';
import { liveQuotes, ownOnBook, pairInventory } from '../../../../src/engine/loop/inventory-view.ts';
import type { PairRuntime } from '../../../../src/engine/wallet/pair-runtime.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import type { StoredOrder } from '../../../../src/store/order-store.ts';

const scales = { baseInternal: 1000n, quoteInternal: 10_000n, baseNative: 10n ** 18n, quoteNative: 10n ** 6n };
const binding = { rules: { scales } } as unknown as PairBinding;
const order = (changes: Partial<StoredOrder> = {}): StoredOrder =>
  ({
    clientOrderId: 7n,
    side: 'buy',
    price: 1_002_500n,
    quantity: 5_000n,
    filled: 0n,
    status: 'resting',
    ...changes,
  }) as unknown as StoredOrder;
const shown = (views: ReturnType<typeof liveQuotes>) =>
  views.map((v) => `${v.id} ${v.side} ${v.quantity.toFixed()} @ ${v.price.toFixed()}`);

describe('the live orders as the strategy sees them', () => {
  it('converts an order once while it stays as it is, and again once it changes', () => {
    const resting = order();
    const first = liveQuotes(binding, [resting]);
    const again = liveQuotes(binding, [resting]);
    expect(shown(first)).toEqual(['7 buy 5 @ 100.25']);
    expect(again[0]).toBe(first[0]);
    // A fill writes a new record: what remains is seen, not the view of the order before.
    const partly = order({ filled: 1_500n, status: 'partiallyFilled' });
    expect(
      shown(liveQuotes(binding, [partly, order({ clientOrderId: 8n, status: 'filled', filled: 5_000n })])),
    ).toEqual(['7 buy 3.5 @ 100.25']);
    // The same record changed in place (never done, but not trusted either) is converted again.
    const changed = { ...resting } as { -readonly [K in keyof StoredOrder]: StoredOrder[K] };
    liveQuotes(binding, [changed]);
    changed.price = 1_003_000n;
    expect(shown(liveQuotes(binding, [changed]))).toEqual(['7 buy 5 @ 100.3']);
  });
  it('counts an order whose cancellation travels as on the book, with one view while it stays as it is', () => {
    const cancelling = order({ status: 'cancelRequested', filled: 1_000n });
    const first = ownOnBook(binding, [cancelling, order({ clientOrderId: 9n, side: 'sell', price: 1_010_000n })]);
    expect(shown(first)).toEqual(['7 buy 4 @ 100.25', '9 sell 5 @ 101']);
    expect(liveQuotes(binding, [cancelling])).toEqual([]);
    expect(ownOnBook(binding, [cancelling])[0]).toBe(first[0]);
    const changed = { ...cancelling } as { -readonly [K in keyof StoredOrder]: StoredOrder[K] };
    ownOnBook(binding, [changed]);
    changed.filled = 2_000n;
    expect(shown(ownOnBook(binding, [changed]))).toEqual(['7 buy 3 @ 100.25']);
  });
  it('values the balances once while they and the share stay the same', () => {
    const runtime = { binding } as unknown as PairRuntime;
    const half = new Decimal('0.5');
    const at = (base: bigint, quote: bigint, share = half) => {
      const inv = pairInventory(runtime, false, { base, quote, native: 0n }, [], share);
      return [inv, `${inv.base.free.toFixed()} ${inv.quote.free.toFixed()} ${inv.quote.locked.toFixed()}`] as const;
    };
    const [first, text] = at(2n * 10n ** 18n, 3_000_000n);
    expect(text).toBe('2 1.5 0');
    expect(at(2n * 10n ** 18n, 3_000_000n)[0]).toBe(first);
    expect(at(2n * 10n ** 18n, 4_000_000n)[1]).toBe('2 2 0');
    expect(at(10n ** 18n, 4_000_000n)[1]).toBe('1 2 0');
    expect(at(10n ** 18n, 4_000_000n, new Decimal('0.25'))[1]).toBe('1 1 0');
  });
});
