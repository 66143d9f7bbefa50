import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Balances, PairBinding, WalletBalances } from '../../../../src/chains/types.ts';
import { BalanceCache } from '../../../../src/engine/loop/balance-cache.ts';
import { WalletBalanceCache } from '../../../../src/engine/loop/wallet-balances.ts';
import { TestClock } from '../../../support/clock.ts';

const QUOTE = 'eure';
const pairOf = (n: number) => ({ pairId: `p${n}`, baseToken: `bond${n}`, quoteToken: QUOTE }) as PairBinding;

type Answer = (w: { native?: bigint; fail?: Error; failed?: readonly string[] }) => Promise<void>;

/** Lets the turn end: a read started before is then on the wire for whatever is signalled next. */
const nextTurn = () => new Promise((r) => setImmediate(r));

/** A chain whose wallet reads the test answers one at a time, each balance being the number of reads so far. */
function chain() {
  const pending: Array<{ tokens: readonly string[]; settle: (v: WalletBalances | Error) => void }> = [];
  const asked: (readonly string[])[] = [];
  let served = 0;
  const adapter = {
    readBalances: (): Promise<Balances> => Promise.reject(new Error('read pair by pair')),
    readWalletBalances: (tokens: readonly string[]) =>
      new Promise<WalletBalances>((resolve, reject) => {
        asked.push(tokens);
        pending.push({ tokens, settle: (v) => (v instanceof Error ? reject(v) : resolve(v)) });
      }),
  };
  const answer: Answer = async (w) => {
    const next = pending.shift();
    if (next === undefined) throw new Error('no read is on the wire');
    served += 1;
    const failed = new Set(w.failed ?? []);
    const ok = next.tokens.filter((t) => !failed.has(t));
    next.settle(
      w.fail ?? {
        tokens: new Map(ok.map((t) => [t, BigInt(served)])),
        failed: new Map([...failed].map((t) => [t, new Error(`${t} unreadable`)])),
        native: w.native ?? BigInt(served),
      },
    );
    // The cache takes the answer in by promise callbacks alone: one turn of the loop runs them all.
    await nextTurn();
  };
  return { adapter, asked, answer, onWire: () => pending.length };
}

function wallet(c: ReturnType<typeof chain>, clock = new TestClock(), maxAgeMs = 60_000) {
  const natives: bigint[] = [];
  const cache = new WalletBalanceCache({
    adapter: c.adapter,
    onRead: (b) => natives.push(b.native),
    maxAgeMs,
    clock,
    logger: pino({ level: 'silent' }),
    wallet: 'w',
  });
  const pairs = (n: number) =>
    Array.from({ length: n }, (_, i) => new BalanceCache({ wallet: cache, pair: pairOf(i), maxAgeMs }));
  return { cache, clock, natives, pairs };
}

describe('the balances of a wallet, shared by the loops of its pairs', () => {
  it('asks once for every token of every pair and the native balance, however many pairs ask at the same moment', async () => {
    const c = chain();
    const w = wallet(c);
    const loops = w.pairs(32);
    const all = Promise.all(loops.map((l) => l.current(w.clock.now())));
    expect(c.onWire()).toBe(1);
    expect(c.asked[0]?.toSorted()).toEqual([...Array.from({ length: 32 }, (_, i) => `bond${i}`), QUOTE].toSorted());
    await c.answer({ native: 7n });
    const balances = await all;
    expect(balances[5]).toEqual({ base: 1n, quote: 1n, native: 7n });
    expect(w.natives).toEqual([7n]);
    // Young and unchanged: the next round of every pair reads nothing.
    await Promise.all(loops.map((l) => l.current(w.clock.now())));
    expect(c.asked).toHaveLength(1);
  });

  it('a change on any pair makes the read of every pair out of date; a read from before it never answers after it', async () => {
    const c = chain();
    const w = wallet(c);
    const [a, b] = w.pairs(2) as [BalanceCache, BalanceCache];
    const first = b.current(w.clock.now());
    await nextTurn();
    // A fill of pair a while b's read is on the wire: b's answer may come from before it.
    a.changed();
    const after = b.current(w.clock.now());
    expect(c.onWire()).toBe(1);
    await c.answer({});
    expect((await first).quote).toBe(1n);
    // The read on the wire ended: one more starts for the change, and what was asked after it waits for that one.
    expect(c.onWire()).toBe(1);
    await c.answer({});
    expect((await after).quote).toBe(2n);
    expect((await a.current(w.clock.now())).quote).toBe(2n);
    expect(c.asked).toHaveLength(2);
  });

  it('changes of several pairs in one turn are one read of all their tokens', async () => {
    const c = chain();
    const w = wallet(c);
    const loops = w.pairs(4);
    const first = loops[0]?.current(w.clock.now());
    await c.answer({});
    await first;
    loops[1]?.changed();
    loops[3]?.changed();
    await Promise.resolve();
    expect(c.asked.slice(1).map((t) => t.toSorted())).toEqual([['bond1', 'bond3', QUOTE]]);
    await c.answer({});
    expect(c.onWire()).toBe(0);
  });

  it('a change reads at once in the background; changes while that read is on the wire cost one more read in all', async () => {
    const c = chain();
    const w = wallet(c);
    const loops = w.pairs(8);
    loops[0]?.changed();
    await Promise.resolve();
    expect(c.onWire()).toBe(1);
    await nextTurn();
    for (const l of loops) l.changed();
    await c.answer({});
    expect(c.onWire()).toBe(1);
    await c.answer({});
    expect(c.onWire()).toBe(0);
    expect((await Promise.all(loops.map((l) => l.current(w.clock.now())))).map((b) => b.base)).toEqual(
      Array.from({ length: 8 }, () => 2n),
    );
    expect(c.asked).toHaveLength(2);
  });

  it('changes signalled in the turn a read started are covered by it: one notice of a block for several pairs is one read', async () => {
    const c = chain();
    const w = wallet(c);
    const loops = w.pairs(8);
    for (const l of loops) l.changed();
    const balances = Promise.all(loops.map((l) => l.current(w.clock.now())));
    await c.answer({});
    expect((await balances).map((b) => b.quote)).toEqual(Array.from({ length: 8 }, () => 1n));
    expect(c.onWire()).toBe(0);
    expect(c.asked).toHaveLength(1);
  });

  it('a change of one pair reads its tokens alone and keeps the rest, until the read of every token is too old', async () => {
    const c = chain();
    const w = wallet(c, new TestClock(), 10_000);
    const loops = w.pairs(4);
    const first = Promise.all(loops.map((l) => l.current(w.clock.now())));
    await c.answer({});
    await first;
    w.clock.advance(4_000);
    loops[2]?.changed();
    await Promise.resolve();
    expect(c.asked[1]?.toSorted()).toEqual(['bond2', QUOTE]);
    await c.answer({ native: 9n });
    const after = await Promise.all(loops.map((l) => l.current(w.clock.now())));
    expect(after.map((b) => [b.base, b.quote, b.native])).toEqual([
      [1n, 2n, 9n],
      [1n, 2n, 9n],
      [2n, 2n, 9n],
      [1n, 2n, 9n],
    ]);
    expect(c.asked).toHaveLength(2);
    // The others were read 10 s ago: the next change reads every token.
    w.clock.advance(6_000);
    loops[0]?.changed();
    await Promise.resolve();
    expect(c.asked[2]).toHaveLength(5);
    await c.answer({});
    expect((await loops[3]?.current(w.clock.now()))?.base).toBe(3n);
  });

  it('after a read that failed, the next read asks for every token', async () => {
    const c = chain();
    const w = wallet(c);
    const loops = w.pairs(3);
    const first = loops[0]?.current(w.clock.now());
    await c.answer({});
    await first;
    loops[1]?.changed();
    await Promise.resolve();
    expect(c.asked[1]?.toSorted()).toEqual(['bond1', QUOTE]);
    await c.answer({ fail: new Error('node unreachable') });
    loops[1]?.changed();
    await Promise.resolve();
    expect(c.asked[2]).toHaveLength(4);
  });

  it('a failed read is seen by those waiting for it and forgotten: the next round reads again', async () => {
    const c = chain();
    const w = wallet(c);
    const [a, b] = w.pairs(2) as [BalanceCache, BalanceCache];
    const both = Promise.allSettled([a.current(w.clock.now()), b.current(w.clock.now())]);
    await c.answer({ fail: new Error('node unreachable') });
    expect((await both).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const again = a.current(w.clock.now());
    expect(c.onWire()).toBe(1);
    await c.answer({});
    expect((await again).base).toBe(2n);
  });

  it('a token that could not be read fails only the pairs that trade it, which read again on their next round', async () => {
    const c = chain();
    const w = wallet(c);
    const [a, b] = w.pairs(2) as [BalanceCache, BalanceCache];
    const both = Promise.allSettled([a.current(w.clock.now()), b.current(w.clock.now())]);
    await c.answer({ failed: ['bond1'] });
    const [ra, rb] = await both;
    expect(ra).toMatchObject({ status: 'fulfilled', value: { base: 1n, quote: 1n } });
    expect(rb).toMatchObject({ status: 'rejected', reason: { message: 'bond1 unreadable' } });
    // Pair a keeps what was read; pair b asks again.
    await a.current(w.clock.now());
    expect(c.onWire()).toBe(0);
    const again = b.current(w.clock.now());
    await c.answer({});
    expect((await again).base).toBe(2n);
  });

  it('serves what it read while it is younger than the longest age, then reads again', async () => {
    const c = chain();
    const w = wallet(c, new TestClock(), 2_000);
    const [a] = w.pairs(1) as [BalanceCache];
    const first = a.current(w.clock.now());
    await c.answer({});
    expect((await first).native).toBe(1n);
    w.clock.advance(1_999);
    expect((await a.current(w.clock.now())).native).toBe(1n);
    w.clock.advance(1);
    const again = a.current(w.clock.now());
    expect(c.onWire()).toBe(1);
    await c.answer({});
    expect((await again).native).toBe(2n);
  });

  it('starts nothing in the background once every loop of the wallet stopped', async () => {
    const c = chain();
    const w = wallet(c);
    const [a, b] = w.pairs(2) as [BalanceCache, BalanceCache];
    a.stop();
    a.stop();
    b.changed();
    await Promise.resolve();
    expect(c.onWire()).toBe(1);
    await c.answer({});
    b.stop();
    b.changed();
    await Promise.resolve();
    expect(c.onWire()).toBe(0);
    expect(w.cache.stopped).toBe(true);
  });

  it('reads pair by pair, gathered by token, through an adapter that cannot read the wallet at once', async () => {
    const reads: string[] = [];
    const w = new WalletBalanceCache({
      adapter: {
        readBalances: async (p: PairBinding) => {
          reads.push(p.pairId);
          if (p.pairId === 'p1') throw new Error('p1 unreadable');
          return { base: 10n, quote: 20n, native: 30n };
        },
      },
      onRead: () => undefined,
      maxAgeMs: 60_000,
      clock: new TestClock(),
      logger: pino({ level: 'silent' }),
      wallet: 'w',
    });
    const [a, b] = [0, 1].map((n) => new BalanceCache({ wallet: w, pair: pairOf(n), maxAgeMs: 60_000 }));
    const [ra, rb] = await Promise.allSettled([a?.current(0), b?.current(0)]);
    expect(reads).toEqual(['p0', 'p1']);
    expect(ra).toMatchObject({ status: 'fulfilled', value: { base: 10n, quote: 20n, native: 30n } });
    expect(rb).toMatchObject({ status: 'rejected', reason: { message: 'p1 unreadable' } });
  });
});
