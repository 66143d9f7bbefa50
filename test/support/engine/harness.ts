/** An order engine on the fake venue and fake adapter, with a manual clock, for unit tests. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { ChainAdapter, PairBinding } from '../../../src/chains/types.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import type { PlaceOrder } from '../../../src/engine/wallet/orders/order-commands.ts';
import { assembleWallet, type WalletEngineOptions, type WalletParts } from '../../../src/engine/wallet/assemble.ts';
import type { WalletEngine } from '../../../src/engine/wallet/wallet-engine.ts';
import { openStore, type Store } from '../../../src/store/store.ts';
import { createMetrics, type Metrics } from '../../../src/telemetry/metrics.ts';
import { TestClock } from '../clock.ts';
import { pairWith } from '../pairs.ts';
import { FakeChainAdapter, type FakeAdapterOptions } from './fake-adapter.ts';
import { FakeVenue, type PairSetup } from './fake-venue.ts';

export const WALLET = '0x00000000000000000000000000000000000000aa';
export const TAKER = '0x00000000000000000000000000000000000000bb';

export interface Harness {
  readonly venue: FakeVenue;
  readonly adapter: FakeChainAdapter;
  readonly store: Store;
  readonly engine: WalletEngine;
  /** The engine's parts, for tests of one part in a whole engine. */
  readonly parts: WalletParts;
  readonly clock: TestClock;
  readonly metrics: Metrics;
  readonly logs: Array<Record<string, unknown>>;
  readonly pair: PairBinding;
  readonly path: string;
  /** Mines a block and lets outcomes and the follower run. */
  block(): Promise<void>;
  /** Lets queued commands, outcomes and deliveries run without mining. */
  settle(): Promise<void>;
  /** A new engine on the same venue and the same state file: a restart. */
  restart(
    options?: Partial<WalletEngineOptions> & { adapter?: FakeAdapterOptions; beforeOpen?: () => void },
  ): Promise<Harness>;
}

export interface HarnessOptions {
  readonly pairs?: readonly PairSetup[];
  readonly adapter?: FakeAdapterOptions;
  readonly engine?: Partial<WalletEngineOptions>;
  readonly venue?: FakeVenue;
  readonly path?: string;
  readonly clock?: TestClock;
  readonly balances?: { base: bigint; quote: bigint };
  /** Wraps the adapter the engine is given (a tap in front of the follower, say). */
  readonly wrapAdapter?: (adapter: ChainAdapter) => ChainAdapter;
}

/** A limit order of the harness's chain A pair (`tp-evm-bond-eure`), as `engine.place` takes it. */
export const placeOrder = (
  side: 'buy' | 'sell',
  qty: string,
  price: string,
  extra: Partial<PlaceOrder> = {},
): PlaceOrder => ({
  pairId: 'tp-evm-bond-eure',
  side,
  quantity: new Decimal(qty),
  price: new Decimal(price),
  ...extra,
});

/** A logger's destination that keeps every JSON line written to it, parsed, in `logs`. */
export function logSink(): { readonly logs: Array<Record<string, unknown>>; readonly sink: Writable } {
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logs, sink };
}

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const venue =
    options.venue ?? new FakeVenue('evm', options.pairs ?? [{ pair: pairWith('evm-pair'), prefunded: true }]);
  if (options.venue === undefined) {
    const b = options.balances ?? { base: 1_000n * 10n ** 8n, quote: 100_000n * 10n ** 6n };
    for (const p of venue.pairs.values()) {
      for (const w of [WALLET, TAKER]) {
        venue.mint(p.binding.baseToken, w, b.base);
        if (p === [...venue.pairs.values()][0]) venue.mint(p.binding.quoteToken, w, b.quote);
      }
    }
  }
  const clock = options.clock ?? new TestClock();
  const path = options.path ?? join(mkdtempSync(join(tmpdir(), 'dltmm-engine-')), 'state.sqlite');
  const store = openStore(path, () => clock.now());
  const adapter = new FakeChainAdapter(venue, WALLET, { journal: store.transactions, ...options.adapter });
  const { logs, sink } = logSink();
  const metrics = createMetrics();
  const pairs = [...venue.pairs.values()].map((p) => p.binding);
  const { engine, parts } = await assembleWallet({
    adapter: options.wrapAdapter === undefined ? adapter : options.wrapAdapter(adapter),
    pairs,
    store,
    marketMaker: false,
    logger: pino({ level: 'info' }, sink),
    metrics,
    clock,
    catchUpTimeoutMs: 5_000,
    settleDelaysMs: [1_000, 2_000],
    inventory: { coverageTimeoutMs: 5_000 },
    ...options.engine,
  });
  // Until a pass starts nothing new: a delivery may queue orders, a send may mine a block and so deliver again.
  // Each pass lets what the last one started run to its next wait (one turn drains the promise chains).
  const settle = async () => {
    for (let pass = 0; ; pass++) {
      const deliveries = adapter.delivered();
      await deliveries;
      await engine.submitted();
      await new Promise((r) => setImmediate(r));
      if (adapter.delivered() === deliveries) return;
      if (pass === 1_000) throw new Error('settle: the engine and the fake chain never went quiet');
    }
  };
  const h: Harness = {
    venue,
    adapter,
    store,
    engine,
    parts,
    clock,
    metrics,
    logs,
    pair: pairs[0] as PairBinding,
    path,
    block: async () => {
      await settle();
      venue.mine();
      await settle();
    },
    settle,
    restart: async (o = {}) => {
      await engine.stop();
      await adapter.close();
      store.close();
      const { adapter: adapterOptions, beforeOpen, ...engineOptions } = o;
      beforeOpen?.();
      return harness({
        ...options,
        venue,
        path,
        clock,
        adapter: { ...options.adapter, ...adapterOptions },
        engine: { ...options.engine, ...engineOptions },
      });
    },
  };
  return h;
}

/** Awaits `work` while moving the manual clock, so that the pauses inside it pass. */
export async function withClock<T>(h: Harness, work: Promise<T>, stepMs = 200): Promise<T> {
  const state = { done: false };
  const result = work.finally(() => {
    state.done = true;
  });
  for (let i = 0; i < 500 && !state.done; i++) {
    await h.settle();
    h.clock.advance(stepMs);
  }
  return result;
}

/** Starts the engine (reconciliation) while the clock lets its confirming pauses pass. */
export function start(h: Harness) {
  return withClock(h, h.engine.start());
}
