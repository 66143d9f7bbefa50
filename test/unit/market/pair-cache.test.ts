import { describe, expect, it } from 'vitest';
import type { TradingPair } from '../../../src/core/pair.ts';
import { PairCache } from '../../../src/market/pair-cache.ts';
import { TestClock } from '../../support/clock.ts';
import { pairWith } from '../../support/pairs.ts';

function source(...lists: (TradingPair[] | Error)[]) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    load: () => {
      const next = lists[Math.min(calls, lists.length - 1)] as TradingPair[] | Error;
      calls += 1;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
}

const evm = pairWith('evm-pair');
const wasm = pairWith('wasm-pair');

describe('pair metadata cache', () => {
  it('loads once, serves from memory until the refresh interval, then reloads', async () => {
    const clock = new TestClock();
    const src = source([evm], [evm, wasm]);
    const cache = new PairCache({ load: src.load, refreshMs: 60_000, clock });
    expect((await cache.pairs()).map((p) => p.id)).toEqual([evm.id]);
    clock.advance(59_999);
    await cache.pairs();
    expect(src.calls).toBe(1);
    clock.advance(1);
    expect((await cache.pairs()).map((p) => p.id)).toEqual([evm.id, wasm.id]);
    expect(src.calls).toBe(2);
  });

  it('concurrent readers share one load', async () => {
    const src = source([evm]);
    const cache = new PairCache({ load: src.load, clock: new TestClock() });
    await Promise.all([
      cache.pairs(),
      cache.pairs(),
      cache.pair(evm.id),
      cache.resolve({ blockChain: 'EVM_CHAIN', baseSymbol: 'BOND26', quoteSymbol: 'EURe' }),
    ]);
    expect(src.calls).toBe(1);
  });

  it('a failed reload serves the last good list and waits retryMs before trying again; a first load must succeed', async () => {
    const clock = new TestClock();
    const src = source([evm], new Error('venue down'));
    const cache = new PairCache({ load: src.load, refreshMs: 1_000, retryMs: 5_000, clock });
    await cache.pairs();
    clock.advance(1_000);
    expect((await cache.pairs()).map((p) => p.id)).toEqual([evm.id]);
    clock.advance(4_999);
    await cache.pairs();
    expect(src.calls).toBe(2);
    clock.advance(1);
    await cache.pairs();
    expect(src.calls).toBe(3);
    await expect(new PairCache({ load: source(new Error('down')).load, clock }).pairs()).rejects.toThrow('down');
  });

  it('an unknown id reloads early once (a redeployed pair has a new id), then is E_PAIR_NOT_FOUND', async () => {
    const clock = new TestClock();
    const src = source([evm], [evm, wasm]);
    const cache = new PairCache({ load: src.load, refreshMs: 60_000, retryMs: 5_000, clock });
    await cache.pairs();
    clock.advance(5_000);
    expect((await cache.pair(wasm.id)).id).toBe(wasm.id);
    await expect(cache.pair('gone')).rejects.toMatchObject({ code: 'E_PAIR_NOT_FOUND' });
    expect(src.calls).toBe(2);
  });

  it('resolves by chain, base and quote symbol through the core resolver', async () => {
    const cache = new PairCache({ load: source([evm, wasm]).load, clock: new TestClock() });
    expect(
      (
        await cache.resolve({
          blockChain: 'WASM_CHAIN',
          baseSymbol: wasm.baseTokenData?.symbol ?? '',
          quoteSymbol: wasm.quoteTokenSymbol,
        })
      ).id,
    ).toBe(wasm.id);
    await expect(
      cache.resolve({ blockChain: 'EVM_CHAIN', baseSymbol: 'NOPE', quoteSymbol: 'EURe' }),
    ).rejects.toMatchObject({ code: 'E_PAIR_NOT_FOUND' });
  });
});
