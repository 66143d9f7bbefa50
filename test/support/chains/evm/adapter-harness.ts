/**
 * A chain A venue on a real node (one per test file, through the sandbox's harness) and chain A adapters on it,
 * each with its own in-memory store, metrics, captured log lines and test time. The bot's wallet `mm` starts
 * with balances and no allowance, so the adapter's own approvals are what let it trade.
 */
import type { JsonRpcProvider } from 'ethers';
import { EvmAdapter } from '../../../../src/chains/evm/evm-adapter.ts';
import type { EvmAdapterOptions } from '../../../../src/chains/evm/options.ts';
import type { CancelCommand, PairBinding, PlaceCommand } from '../../../../src/chains/types.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { ZERO_REPORTING } from '../../../../src/core/encoding/reporting.ts';
import { approvalFor } from '../../../../src/core/money.ts';
import { DEFAULT_ORDER_OPTIONS, type Side } from '../../../../src/core/order-terms.ts';
import { derivePairRules } from '../../../../src/core/rules.ts';
import type { SandboxWalletSpec } from '../../../../src/sandbox/evm/venue.ts';
import { openStore, type Store } from '../../../../src/store/store.ts';
import { createLogger } from '../../../../src/telemetry/logger.ts';
import { Metrics } from '../../../../src/telemetry/metrics.ts';
import { pairWith } from '../../pairs.ts';
import { Harness } from '../../sandbox/evm/harness.ts';
import { TestTime } from './test-time.ts';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

const FUNDED = { balances: { BOND26: '1000', EURe: '1000000' } };

export const CAST: readonly SandboxWalletSpec[] = [
  { name: 'mm', ...FUNDED },
  { name: 'taker', ...FUNDED, allowances: { BOND26: 'unlimited', EURe: 'unlimited' } },
  { name: 'nobuy', canBuy: false, ...FUNDED },
  { name: 'outsider', whitelisted: false, ...FUNDED },
  { name: 'poor', balances: { EURe: '10' } },
  { name: 'nobene', beneficiary: false, balances: { EURe: '1000000' } },
];

export interface TestAdapter {
  readonly adapter: EvmAdapter;
  readonly store: Store;
  readonly metrics: Metrics;
  readonly time: TestTime;
  readonly logs: string[];
  readonly privateKey: string;
}

export class ChainA {
  readonly h: Harness;
  readonly pair: PairBinding;
  readonly #open: TestAdapter[] = [];

  private constructor(h: Harness) {
    this.h = h;
    const p = h.pair.pair;
    this.pair = {
      pairId: p.id,
      symbol: p.symbol ?? p.id,
      chain: 'evm',
      orderBook: h.pair.orderBook,
      baseToken: h.pair.baseToken,
      quoteToken: h.pair.quoteToken,
      rules: derivePairRules(p),
    };
  }

  static async start(wallets: readonly SandboxWalletSpec[] = CAST): Promise<ChainA> {
    return new ChainA(await Harness.start(pairWith('evm-pair'), {}, wallets));
  }

  get provider(): JsonRpcProvider {
    return this.h.provider;
  }

  key(name: string): string {
    return this.h.signer(name).privateKey;
  }

  /** An adapter for wallet `name`; `shared` reuses another adapter's store and time (a restart). */
  adapter(
    name = 'mm',
    options: Partial<EvmAdapterOptions> = {},
    shared?: Pick<TestAdapter, 'store' | 'time'>,
  ): TestAdapter {
    const time = shared?.time ?? new TestTime();
    const store = shared?.store ?? openStore(':memory:', time.clock.now);
    const metrics = new Metrics();
    const logs: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => logs.push(line) } });
    const privateKey = this.key(name);
    const adapter = new EvmAdapter({
      rpcUrl: this.h.node.rpcUrl,
      chainId: 80002n,
      privateKey,
      journal: store.transactions,
      state: store.state,
      logger,
      metrics,
      clock: time.clock,
      follower: { confirmations: 0, pollIntervalMs: 1000 },
      ...options,
    });
    const t = { adapter, store, metrics, time, logs, privateKey };
    this.#open.push(t);
    return t;
  }

  /** A standard GFD limit order of the bot, with the approval the core computes for it. */
  place(
    side: Side,
    quantity: string,
    price: string,
    clientOrderId: bigint,
    pair: PairBinding = this.pair,
  ): PlaceCommand {
    const terms = { ...DEFAULT_ORDER_OPTIONS, side, quantity: new Decimal(quantity), price: new Decimal(price) };
    const approval = approvalFor(side, terms.quantity, terms.price, pair.rules.scales, pair.rules.commissions, false);
    return { kind: 'place', pair, clientOrderId, terms, reporting: ZERO_REPORTING, approval };
  }

  cancel(side: Side, orderId: bigint): CancelCommand {
    return { kind: 'cancel', pair: this.pair, side, orderId };
  }

  async setAutomine(on: boolean): Promise<void> {
    await this.provider.send('evm_setAutomine', [on]);
    if (!on) await this.provider.send('evm_setIntervalMining', [0]);
  }

  async mine(blocks = 1): Promise<void> {
    for (let i = 0; i < blocks; i++) await this.provider.send('evm_mine', []);
  }

  /** Closes every adapter opened since the last call (each test's `afterEach`). */
  async closeAdapters(): Promise<void> {
    const open = this.#open.splice(0);
    for (const t of open) await t.adapter.close();
    for (const store of new Set(open.map((t) => t.store))) store.close();
  }

  async stop(): Promise<void> {
    await this.closeAdapters();
    await this.h.stop();
  }
}

/**
 * One chain A node for a test file, each test on a snapshot of it (automining again, adapters closed, the
 * chain restored afterwards). `set` receives the chain once it has started.
 */
export function useChainA(set: (c: ChainA) => void): void {
  let c: ChainA | undefined;
  beforeAll(async () => {
    c = await ChainA.start();
    set(c);
  });
  afterAll(async () => c?.stop());
  beforeEach(async () => c?.h.save());
  afterEach(async () => {
    if (c === undefined) return;
    await c.setAutomine(true);
    await c.closeAdapters();
    await c.h.restore();
  });
}
