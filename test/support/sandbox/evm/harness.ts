/**
 * One real node per test file with a venue deployed from a TradingPair (through `deployVenue`, the launcher's
 * own path) and a cast of wallets; each test runs between an evm_snapshot and an evm_revert, so it starts
 * from the freshly deployed venue.
 */
import { Contract, Wallet, type JsonRpcProvider, type LogDescription, type TransactionReceipt } from 'ethers';
import { DEFAULT_ORDER_OPTIONS } from '../../../../src/core/order-terms.ts';
import {
  encodeEvmCrossIdentifier,
  encodeEvmOrderData,
  encodeEvmReportingData,
} from '../../../../src/core/encoding/evm-order.ts';
import { ZERO_REPORTING, type ReportingData } from '../../../../src/core/encoding/reporting.ts';
import type { DltError } from '../../../../src/core/errors.ts';
import type { TradingPair } from '../../../../src/core/pair.ts';
import type { PairOverrides } from '../../../../src/core/rules.ts';
import { contractAt, sandboxProvider } from '../../../../src/sandbox/evm/chain.ts';
import { startEvmNode, type EvmNode } from '../../../../src/sandbox/evm/node.ts';
import { revertToError } from '../../../../src/sandbox/evm/revert.ts';
import {
  deployVenue,
  type DeployedPair,
  type EvmVenue,
  type SandboxWalletSpec,
} from '../../../../src/sandbox/evm/venue.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

export const BUY = 1;
export const SELL = 2;

const FUNDED = {
  balances: { BOND26: '1000', EURe: '1000000' },
  allowances: { BOND26: 'unlimited', EURe: 'unlimited' },
};

/** The cast: ordinary traders, a market maker, and wallets each missing one permission. */
export const CAST: readonly SandboxWalletSpec[] = [
  { name: 'alice', ...FUNDED },
  { name: 'bob', ...FUNDED },
  { name: 'carol', ...FUNDED },
  { name: 'mia', marketMaker: true, ...FUNDED },
  { name: 'dora', balances: FUNDED.balances },
  { name: 'outsider', whitelisted: false, ...FUNDED },
  { name: 'nobuy', canBuy: false, ...FUNDED },
  { name: 'nosell', canSell: false, ...FUNDED },
  { name: 'nocancel', canCancel: false, ...FUNDED },
  { name: 'nobene', beneficiary: false, balances: { EURe: '1000000' }, allowances: { EURe: 'unlimited' } },
  { name: 'poor', balances: { EURe: '10' }, allowances: { EURe: 'unlimited' } },
];

export interface BookLog {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface Placed {
  readonly receipt: TransactionReceipt;
  readonly orderId: bigint | null;
  readonly events: BookLog[];
}

export type Balances = Map<string, { base: bigint; quote: bigint }>;

export class Harness {
  readonly node: EvmNode;
  readonly provider: JsonRpcProvider;
  readonly venue: EvmVenue;
  readonly pair: DeployedPair;
  readonly book: Contract;
  readonly base: Contract;
  readonly quote: Contract;
  private readonly signers = new Map<string, Wallet>();
  private readonly addresses = new Map<string, string>();
  private snapshotId: string | null = null;

  private constructor(node: EvmNode, provider: JsonRpcProvider, venue: EvmVenue) {
    this.node = node;
    this.provider = provider;
    this.venue = venue;
    this.pair = venue.pairs[0] as DeployedPair;
    this.book = contractAt('OrderBook', this.pair.orderBook, provider);
    this.base = contractAt('RestrictedToken', this.pair.baseToken, provider);
    this.quote = contractAt('EMoneyToken', this.pair.quoteToken, provider);
    for (const w of venue.wallets) {
      this.signers.set(w.name, new Wallet(w.privateKey, provider));
      this.addresses.set(w.name, w.address);
    }
    this.signers.set('operator', new Wallet(venue.operator.privateKey, provider));
    this.addresses.set('operator', venue.operator.address);
    this.addresses.set('commission', venue.commissionWallet.address);
    this.addresses.set('orderBook', this.pair.orderBook);
  }

  static async start(
    pair: TradingPair,
    overrides: PairOverrides = {},
    wallets: readonly SandboxWalletSpec[] = CAST,
  ): Promise<Harness> {
    const node = await startEvmNode();
    try {
      const venue = await deployVenue(node.rpcUrl, { pairs: [{ pair, overrides }], wallets });
      return new Harness(node, sandboxProvider(node.rpcUrl), venue);
    } catch (e) {
      await node.stop();
      throw e;
    }
  }

  async stop(): Promise<void> {
    this.provider.destroy();
    await this.node.stop();
  }

  /** Saves the chain state; `restore` goes back to it (call in beforeEach / afterEach). */
  async save(): Promise<void> {
    this.snapshotId = (await this.provider.send('evm_snapshot', [])) as string;
  }

  async restore(): Promise<void> {
    if (this.snapshotId !== null) await this.provider.send('evm_revert', [this.snapshotId]);
    this.snapshotId = null;
  }

  address(name: string): string {
    const a = this.addresses.get(name);
    if (!a) throw new Error(`no account ${name}`);
    return a;
  }

  signer(name: string): Wallet {
    const s = this.signers.get(name);
    if (!s) throw new Error(`no signer ${name}`);
    return s;
  }

  bookAs(name: string): Contract {
    return this.book.connect(this.signer(name)) as Contract;
  }

  tokenAs(token: 'base' | 'quote', name: string): Contract {
    return (token === 'base' ? this.base : this.quote).connect(this.signer(name)) as Contract;
  }

  /** A standard GFD limit order, encoded with the core's chain A encoder (what the bot sends). */
  place(
    name: string,
    side: 'buy' | 'sell',
    quantity: bigint,
    price: bigint,
    crossId = 0n,
    reporting: ReportingData = ZERO_REPORTING,
  ): Promise<Placed> {
    const orderData = encodeEvmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity, price });
    return this.placeRaw(name, side, orderData, encodeEvmReportingData(reporting), encodeEvmCrossIdentifier(crossId));
  }

  placeRaw(
    name: string,
    side: 'buy' | 'sell',
    orderData: Uint8Array | string,
    reporting: Uint8Array | string,
    crossId: Uint8Array | string,
  ): Promise<Placed> {
    return this.call(name, side === 'buy' ? 'newBuyOrder' : 'newSellOrder', [orderData, reporting, crossId]);
  }

  cancel(name: string, side: 'buy' | 'sell', orderId: bigint): Promise<Placed> {
    return this.call(name, side === 'buy' ? 'cancelBuyOrder' : 'cancelSellOrder', [orderId]);
  }

  /** Any order book function as a transaction from `name`; resolves with the receipt and the book's events. */
  async call(name: string, method: string, args: readonly unknown[]): Promise<Placed> {
    const tx = await this.bookAs(name)
      .getFunction(method)
      .send(...args);
    const receipt = (await tx.wait()) as TransactionReceipt;
    const events = this.events(receipt);
    const received = events.find((e) => e.name === 'OrderReceived');
    return { receipt, events, orderId: received ? (received.args.orderId as bigint) : null };
  }

  events(receipt: TransactionReceipt): BookLog[] {
    const address = this.pair.orderBook.toLowerCase();
    return receipt.logs
      .filter((l) => l.address.toLowerCase() === address)
      .map((l) => this.book.interface.parseLog(l) as LogDescription)
      .map((d) => ({
        name: d.name,
        args: Object.fromEntries(d.fragment.inputs.map((input, i) => [input.name, d.args[i] as unknown])),
      }));
  }

  /** The typed error a call fails with (the test fails if it succeeds). */
  async failure(promise: Promise<unknown>): Promise<DltError> {
    try {
      await promise;
    } catch (e) {
      return revertToError(e);
    }
    throw new Error('expected the call to revert, but it succeeded');
  }

  async balances(names: readonly string[] = [...this.addresses.keys()]): Promise<Balances> {
    const rows = await Promise.all(
      names.map(async (n) => {
        const [base, quote] = (await Promise.all([
          this.base.getFunction('balanceOf').staticCall(this.address(n)),
          this.quote.getFunction('balanceOf').staticCall(this.address(n)),
        ])) as [bigint, bigint];
        return [n, { base, quote }] as const;
      }),
    );
    return new Map(rows);
  }

  /** Every balance that changed between two snapshots, as {name: {base?, quote?}}. */
  static deltas(before: Balances, after: Balances): Record<string, { base?: bigint; quote?: bigint }> {
    const out: Record<string, { base?: bigint; quote?: bigint }> = {};
    for (const [n, a] of after) {
      const b = before.get(n) ?? { base: 0n, quote: 0n };
      if (a.base !== b.base) (out[n] ??= {}).base = a.base - b.base;
      if (a.quote !== b.quote) (out[n] ??= {}).quote = a.quote - b.quote;
    }
    return out;
  }

  /** Runs `fn` and returns the balance changes it caused. */
  async deltasOf(fn: () => Promise<unknown>): Promise<Record<string, { base?: bigint; quote?: bigint }>> {
    const before = await this.balances();
    await fn();
    return Harness.deltas(before, await this.balances());
  }

  async read<T>(method: string, ...args: unknown[]): Promise<T> {
    return (await this.book.getFunction(method).staticCall(...args)) as T;
  }

  /** The resting orders of one side in priority order: [id, owner name, remaining, price]. */
  async side(side: 1 | 2): Promise<[bigint, string, bigint, bigint][]> {
    const ids = await this.read<bigint[]>('getOrderIds', side, 100);
    const names = new Map([...this.addresses].map(([n, a]) => [a.toLowerCase(), n]));
    return Promise.all(
      ids.map(async (id) => {
        const o = await this.read<[string, bigint, bigint, bigint]>('getOrder', id);
        return [id, names.get(o[0].toLowerCase()) ?? o[0], o[2], o[3]] as [bigint, string, bigint, bigint];
      }),
    );
  }
}

/** One raw unit of base quantity (1.0 at the pair's internal scale of 10^4) and half of it. */
export const ONE = 10_000n;
export const HALF = 5_000n;
/** 1.0 base at the base token's native scale. */
export const BASE_ONE = 100_000_000n;
/** A human price at the default pair's internal quote scale (10^4). */
export const px = (human: string): bigint => BigInt(new Decimal(human).mul(10_000).toFixed(0));

/**
 * One node with the venue for `pair` for a test file, each test between a snapshot and a revert. `set`
 * receives the harness once it has started.
 */
export function useHarness(pair: TradingPair, set: (h: Harness) => void, overrides: PairOverrides = {}): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await Harness.start(pair, overrides);
    set(h);
  });
  afterAll(async () => h?.stop());
  beforeEach(async () => h?.save());
  afterEach(async () => h?.restore());
}
