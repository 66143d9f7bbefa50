/**
 * The source accounts: taken in the order asked for, busy until released, a sequence number kept only while
 * known, and a source whose last transaction's fate is unknown left resting until that transaction can no
 * longer apply.
 */
import { Keypair } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import type { Sleep } from '../../../../src/chains/wasm/options.ts';
import { SourcePool } from '../../../../src/chains/wasm/source-pool.ts';

function manualSleep(): { sleep: Sleep; delays: number[]; wake: () => void } {
  const delays: number[] = [];
  let pending: Array<() => void> = [];
  return {
    delays,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        delays.push(ms);
        pending.push(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      }),
    wake: () => {
      const p = pending;
      pending = [];
      p.forEach((f) => f());
    },
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('source pool', () => {
  it('serves waiting callers in the order they asked', async () => {
    const clock = { now: () => 0 };
    const pool = new SourcePool([Keypair.random()], clock, manualSleep().sleep);
    const first = await pool.acquire();
    const order: string[] = [];
    const b = pool.acquire().then((s) => {
      order.push('b');
      return s;
    });
    const c = pool.acquire().then(() => order.push('c'));
    await tick();
    expect(order).toEqual([]);
    pool.release(first, { kind: 'included', sequence: 5n });
    pool.release(await b, { kind: 'unused' });
    await c;
    expect(order).toEqual(['b', 'c']);
  });

  it('keeps a sequence number only while it is known', async () => {
    const pool = new SourcePool([Keypair.random()], { now: () => 0 }, manualSleep().sleep);
    const s = await pool.acquire();
    pool.release(s, { kind: 'included', sequence: 41n });
    expect((await pool.acquire()).sequence).toBe(41n);
    pool.release(s, { kind: 'unused' });
    expect((await pool.acquire()).sequence).toBe(41n);
    pool.release(s, { kind: 'notApplied' });
    expect((await pool.acquire()).sequence).toBeNull();
  });

  it('rests a source whose last fate is unknown; another source is used meanwhile, or the caller waits', async () => {
    let now = 1000;
    const sleeper = manualSleep();
    const [k1, k2] = [Keypair.random(), Keypair.random()];
    const pool = new SourcePool([k1, k2], { now: () => now }, sleeper.sleep, { reserveForUrgent: 0 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    pool.release(a, { kind: 'unknown', restUntilMs: 31_000 });
    expect(a.sequence).toBeNull();
    pool.release(b, { kind: 'included', sequence: 7n });
    expect((await pool.acquire()).address).toBe(b.address);
    const waiting = pool.acquire();
    await tick();
    expect(sleeper.delays).toEqual([30_000]);
    now = 31_000;
    sleeper.wake();
    expect((await waiting).address).toBe(a.address);
  });

  it('serves an urgent caller before those who asked earlier', async () => {
    const pool = new SourcePool([Keypair.random()], { now: () => 0 }, manualSleep().sleep);
    const held = await pool.acquire();
    const order: string[] = [];
    const placement = pool.acquire().then((s) => (order.push('placement'), s));
    const cancel = pool.acquire({ urgent: true }).then((s) => (order.push('cancel'), s));
    await tick();
    pool.release(held, { kind: 'unused' });
    pool.release(await cancel, { kind: 'unused' });
    await placement;
    expect(order).toEqual(['cancel', 'placement']);
  });

  it('keeps one source free for cancels: placements wait while it is the last one, a cancel takes it at once', async () => {
    const sleeper = manualSleep();
    const pool = new SourcePool(
      [Keypair.random(), Keypair.random(), Keypair.random()],
      { now: () => 0 },
      sleeper.sleep,
    );
    await pool.acquire();
    await pool.acquire();
    let third = false;
    const placement = pool.acquire().then((s) => ((third = true), s));
    await tick();
    expect(third).toBe(false);
    const cancel = await pool.acquire({ urgent: true });
    expect(pool.freeCount).toBe(0);
    pool.release(cancel, { kind: 'unused' });
    await tick();
    // Free again, but it is the reserve: the placement still waits for another source.
    expect(third).toBe(false);
    expect(pool.freeCount).toBe(1);
    void placement;
  });

  it('stops waiting when the caller gives up', async () => {
    const pool = new SourcePool([Keypair.random()], { now: () => 0 }, manualSleep().sleep);
    await pool.acquire();
    const stop = new AbortController();
    const waiting = pool.acquire({ signal: stop.signal });
    stop.abort(new Error('closing'));
    await expect(waiting).rejects.toThrow('closing');
  });
});
