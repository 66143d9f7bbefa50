/**
 * The crash test's cycle: start the bot process on its state file, wait until it has reconciled, check the
 * chain against the store with the test's own reads, let the busy flow run (with a taker crossing our
 * quotes now and then), and kill the process with SIGKILL at a seeded moment or at a named point of a
 * placement. What is checked after every restart:
 *   - every resting order of the wallet on chain is in the store, live, with the same remaining quantity;
 *   - no client order id reached the book twice (one OrderReceived at most per cross identifier), and each
 *     one that did is an order of the store;
 *   - the inventory totals in the store equal the wallet's on-chain balances plus what its resting orders
 *     lock, for base and quote;
 *   - an order killed at a named point is settled without a second transaction.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { ChainUnderTest } from './crash-chains.ts';
import { DriverProcess, type DriverLine } from './driver-process.ts';
import { between, pick, seeded } from './random.ts';
import { readStore } from './store-view.ts';

export interface CrashSummary {
  readonly kills: number;
  readonly named: Record<string, number>;
  readonly takerOrders: number;
  readonly restartMs: number[];
}

interface Named {
  readonly point: string;
  readonly clientOrderId: bigint | null;
  /** When the process was killed (epoch ms): nothing may be signed for the order after it. */
  readonly atMs: number;
}

const LIVE = new Set(['resting', 'partiallyFilled', 'cancelRequested']);
const POINTS = ['after-record', 'after-journal', 'after-broadcast'] as const;

async function check(chain: ChainUnderTest, storePath: string, ready: DriverLine, killed: Named | null): Promise<void> {
  expect({ ready: ready.ready, mismatched: ready.mismatched }).toEqual({ ready: true, mismatched: [] });
  const view = readStore(storePath, chain.wallet);
  const resting = await chain.restingOrders();
  for (const r of resting) {
    const row = view.orders.find((o) => o.orderId === r.orderId);
    expect(
      row === undefined
        ? `order ${r.orderId} resting on chain is unknown to the bot`
        : { live: LIVE.has(row.status), remaining: row.remaining },
    ).toEqual({
      live: true,
      remaining: r.remaining,
    });
  }
  const crossIds = await chain.placedCrossIds();
  expect(crossIds.length).toBe(new Set(crossIds).size);
  const ours = new Set(view.orders.map((o) => o.clientOrderId));
  expect(crossIds.filter((c) => !ours.has(c))).toEqual([]);
  const balances = await chain.balances();
  const locked = chain.locked(resting);
  expect({ base: view.inventory.get(chain.tokens.base), quote: view.inventory.get(chain.tokens.quote) }).toEqual({
    base: balances.base + locked.base,
    quote: balances.quote + locked.quote,
  });
  expect(view.openAlerts.filter((a) => a.kind !== 'foreign-order')).toEqual([]);
  if (killed?.clientOrderId !== null && killed !== null) {
    const cid = killed.clientOrderId;
    const row = view.orders.find((o) => o.clientOrderId === cid);
    const reached = crossIds.filter((c) => c === cid).length;
    // Settled from the chain: decided, on the book at most once, and no transaction signed for it after the kill.
    const signed = view.placeTxs.get(cid) ?? [];
    expect({
      decided: row !== undefined && !['intended', 'submitting', 'unknown'].includes(row.status),
      reached: reached <= 1,
      signed: signed.length > 0,
      signedAfterRestart: signed.filter((ms) => ms > killed.atMs).length,
    }).toEqual({ decided: true, reached: true, signed: killed.point !== 'after-record', signedAfterRestart: 0 });
    if (killed.point === 'after-record') expect(row?.rejectionCode).toBe('E_ORDER_NOT_SENT');
  }
}

const debug = process.env.DLTMM_CRASH_DEBUG === '1' ? (...a: unknown[]) => console.error('[crash]', ...a) : () => {};

export async function runCrashCycles(
  chain: ChainUnderTest,
  dir: string,
  kills: number,
  seed: number,
): Promise<CrashSummary> {
  const random = seeded(seed);
  const storePath = join(dir, 'state.sqlite');
  const configPath = join(dir, 'driver.json');
  writeFileSync(
    configPath,
    JSON.stringify(chain.config(storePath, seed), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  );
  const named: Record<string, number> = {};
  const restartMs: number[] = [];
  let takerOrders = 0;
  let killed: Named | null = null;
  let done = 0;
  let namedCycles = 0;
  for (let cycle = 0; cycle <= kills; cycle++) {
    // About half the kills at a named point of a placement, taking the three points in turn; the rest at a random moment.
    const crashAt =
      cycle < kills && random() < 0.5
        ? { point: POINTS[namedCycles++ % POINTS.length] as string, n: between(random, 1, 3) }
        : null;
    const started = performance.now();
    const driver = new DriverProcess(
      configPath,
      crashAt === null ? {} : { DLTMM_CRASH_AT: `${crashAt.point}:${crashAt.n}` },
    );
    try {
      const ready = await driver.next('ready', 60_000);
      restartMs.push(performance.now() - started);
      debug(cycle, 'ready in', Math.round(performance.now() - started), 'ms', JSON.stringify(ready), crashAt);
      await check(chain, storePath, ready, killed).catch((e: unknown) => {
        debug('driver said:\n' + driver.stderr.join('\n'));
        throw e;
      });
      if (cycle === kills) break;
      driver.go();
      // A taker crosses our quotes now and then while the bot runs: maker fills to attribute.
      const takers = between(random, 0, 2);
      const plan = Array.from({ length: takers }, () => ({
        at: between(random, 50, 800),
        side: pick(random, ['buy', 'sell'] as const),
        halves: between(random, 1, 4),
      }));
      const run = (async () => {
        for (const t of plan.toSorted((a, b) => a.at - b.at)) {
          await sleep(t.at);
          await chain.taker(t.side, ...takerTerms(chain, t.side, t.halves)).catch(() => {});
          takerOrders++;
        }
      })();
      if (crashAt !== null) await Promise.race([driver.exited, sleep(6_000)]);
      else await sleep(between(random, 150, 1_500));
      await driver.kill();
      await run;
      done++;
      const crash = driver.lines.find((l) => l.type === 'crash');
      killed =
        crash === undefined
          ? null
          : {
              point: String(crash.point),
              clientOrderId: crash.clientOrderId === undefined ? null : BigInt(String(crash.clientOrderId)),
              atMs: Date.now(),
            };
      if (crash !== undefined) named[String(crash.point)] = (named[String(crash.point)] ?? 0) + 1;
    } finally {
      await driver.kill();
    }
  }
  return { kills: done, named, takerOrders, restartMs };
}

/** A taker order that crosses the flow's quotes by a few ticks (raw internal units). */
function takerTerms(chain: ChainUnderTest, side: 'buy' | 'sell', halves: number): [bigint, bigint] {
  if (chain.name === 'evm') return [BigInt(halves) * 5_000n, side === 'buy' ? 1_003_000n : 997_000n];
  return [BigInt(halves) * 500n, side === 'buy' ? 124_400n : 122_400n];
}
