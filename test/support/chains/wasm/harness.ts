/**
 * One chain B emulator per test file for the adapter: manual ledgers on a test clock, the RPC server on a
 * free loopback port, the venue and the sample pair deployed, and adapters built on an in-memory store.
 * Waiting is ledgers: the adapter's injected sleep closes the next ledger (moving the clock 5 s, as the
 * network would), optionally held shut until the test opens it, so a test decides what lands in one ledger.
 */
import { readFileSync } from 'node:fs';
import { Keypair } from '@stellar/stellar-sdk';
import { parseTradingPair, type TradingPair } from '../../../../src/core/pair.ts';
import { derivePairRules, type PairOverrides } from '../../../../src/core/rules.ts';
import type {
  CancelCommand,
  ChainEvent,
  Outcome,
  PairBinding,
  PlaceCommand,
  Submission,
} from '../../../../src/chains/types.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { ZERO_REPORTING, type ReportingData } from '../../../../src/core/encoding/reporting.ts';
import { approvalFor } from '../../../../src/core/money.ts';
import {
  DEFAULT_ORDER_OPTIONS,
  type ExecutionCondition,
  type OrderType,
  type Side,
} from '../../../../src/core/order-terms.ts';
import type { Sleep } from '../../../../src/chains/wasm/options.ts';
import { WasmAdapter } from '../../../../src/chains/wasm/wasm-adapter.ts';
import type { WasmAdapterOptions } from '../../../../src/chains/wasm/options.ts';
import { freePort } from '../../../../src/sandbox/net.ts';
import { deployPair, deployVenue, type BookDeployment, type Venue } from '../../../../src/sandbox/wasm/deploy.ts';
import { WasmEmulator } from '../../../../src/sandbox/wasm/emulator.ts';
import { setUpWallet } from '../../../../src/sandbox/wasm/operator.ts';
import { startRpcServer, type RunningRpc } from '../../../../src/sandbox/wasm/rpc-server.ts';
import { openStore, type Store } from '../../../../src/store/store.ts';
import { createLogger, type Logger } from '../../../../src/telemetry/logger.ts';
import { Metrics } from '../../../../src/telemetry/metrics.ts';
import { pacedClock } from '../../clock.ts';
import { TestClock } from '../../clock.ts';
import { perFile } from '../../per-file.ts';
export { TestClock };

export const PAIR = parseTradingPair(
  JSON.parse(readFileSync(new URL('../../../fixtures/pairs/wasm-pair.json', import.meta.url), 'utf8')),
);
export const OVERRIDES: PairOverrides = { minimumSize: '0.005' };
export const BIG = 1_000_000_000_000n;
const LEDGER_SECONDS = 5;
const noop = (): void => undefined;

export interface Harness {
  readonly emu: WasmEmulator;
  readonly clock: TestClock;
  readonly rpc: RunningRpc;
  readonly venue: Venue;
  readonly d: BookDeployment;
  readonly pair: PairBinding;
  /** Closes one ledger, 5 s after the last on the test clock. */
  ledger(): void;
  /** A sleep that closes one ledger per call; `hold()` keeps sleepers waiting until `open()`. */
  readonly sleeper: LedgerSleeper;
  close(): Promise<void>;
}

export interface LedgerSleeper {
  readonly sleep: Sleep;
  hold(): void;
  open(): void;
  /** Sleep calls so far. */
  readonly calls: number;
}

export function bindingOf(
  d: BookDeployment,
  pair: TradingPair = PAIR,
  overrides: PairOverrides = OVERRIDES,
): PairBinding {
  return {
    pairId: d.name,
    symbol: pair.symbol ?? d.name,
    chain: 'wasm',
    orderBook: d.addresses.orderBook.strkey,
    baseToken: d.addresses.base.strkey,
    quoteToken: d.addresses.quote.strkey,
    rules: derivePairRules(pair, overrides),
  };
}

export async function startHarness(options: { retentionLedgers?: number } = {}): Promise<Harness> {
  const clock = new TestClock();
  const emu = new WasmEmulator({ clock, ledgerIntervalMs: 0, retentionLedgers: options.retentionLedgers });
  const rpc = await startRpcServer(emu, { port: await freePort() });
  const venue = deployVenue(emu, Keypair.fromRawEd25519Seed(Buffer.alloc(32, 7)));
  const d = deployPair(emu, venue, { pair: PAIR, prefunded: true, overrides: OVERRIDES });
  const ledger = () => {
    clock.advance(LEDGER_SECONDS * 1000);
    emu.closeLedger();
  };
  ledger();
  let gate: Promise<void> = Promise.resolve();
  let openGate: () => void = noop;
  let calls = 0;
  const sleeper: LedgerSleeper = {
    sleep: async (_ms, signal) => {
      calls++;
      signal?.throwIfAborted();
      // A held sleeper still wakes when its caller gives up (an adapter closing).
      await Promise.race([
        gate,
        new Promise<never>((_, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
        ),
      ]);
      ledger();
    },
    hold() {
      gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
    },
    open() {
      openGate();
      gate = Promise.resolve();
    },
    get calls() {
      return calls;
    },
  };
  return { emu, clock, rpc, venue, d, pair: bindingOf(d), ledger, sleeper, close: () => rpc.close() };
}

export interface WalletOptions {
  readonly base?: bigint;
  readonly quote?: bigint;
  readonly approve?: bigint;
  readonly canBuy?: boolean;
  readonly canSell?: boolean;
  readonly canCancel?: boolean;
  readonly registered?: boolean;
}

/** A funded trading wallet with trustlines, balances, optional approvals and a registry record. */
export function wallet(h: Harness, o: WalletOptions = {}, d: BookDeployment = h.d): Keypair {
  return enrol(h, Keypair.random(), o, d);
}

/** Sets an account up (again) for one more deployment: trustlines, balances, registry record. */
export function enrol(h: Harness, kp: Keypair, o: WalletOptions = {}, d: BookDeployment = h.d): Keypair {
  setUpWallet(h.emu, h.venue, d, kp.publicKey(), {
    base: o.base ?? BIG,
    quote: o.quote ?? BIG,
    ...(o.approve === undefined ? {} : { approveBase: o.approve, approveQuote: o.approve }),
    ...(o.registered === false
      ? {}
      : {
          client: {
            canBuy: o.canBuy ?? true,
            canSell: o.canSell ?? true,
            canCancel: o.canCancel ?? true,
            canTransfer: true,
            isMarketMaker: false,
          },
        }),
  });
  return kp;
}

export function channels(h: Harness, n: number, stroops = 100_000_000_000n): Keypair[] {
  return Array.from({ length: n }, () => {
    const kp = Keypair.random();
    h.emu.fundAccount(kp.publicKey(), stroops);
    return kp;
  });
}

export interface Built {
  readonly adapter: WasmAdapter;
  readonly store: Store;
  readonly metrics: Metrics;
  /** Every log line the adapter wrote. */
  readonly logs: string[];
  readonly logger: Logger;
}

export function adapterFor(
  h: Harness,
  trading: Keypair,
  o: Partial<WasmAdapterOptions> & { store?: Store } = {},
): Built {
  const store = o.store ?? openStore(':memory:', () => h.clock.now());
  const metrics = new Metrics();
  const logs: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logs.push(line) },
    now: () => h.clock.now(),
  });
  const adapter = new WasmAdapter({
    rpcUrl: h.rpc.url,
    networkPassphrase: h.emu.passphrase,
    tradingKey: trading,
    journal: store.transactions,
    state: store.state,
    logger,
    metrics,
    clock: pacedClock(() => h.clock.now(), h.sleeper.sleep),
    pollIntervalMs: 10,
    ...o,
  });
  return { adapter, store, metrics, logs, logger };
}

let nextClientOrderId = 1n;

export interface PlaceOptions {
  readonly clientOrderId?: bigint;
  readonly condition?: ExecutionCondition;
  readonly type?: OrderType;
  readonly reporting?: ReportingData;
  readonly pair?: PairBinding;
}

/** A placement command with the approval the core computes for it. */
export function placeCommand(
  h: Harness,
  side: Side,
  quantity: string,
  price: string,
  o: PlaceOptions = {},
): PlaceCommand {
  const pair = o.pair ?? h.pair;
  const terms = {
    ...DEFAULT_ORDER_OPTIONS,
    side,
    quantity: new Decimal(quantity),
    price: new Decimal(price),
    condition: o.condition ?? 'standard',
    type: o.type ?? 'limit',
  };
  return {
    kind: 'place',
    pair,
    clientOrderId: o.clientOrderId ?? nextClientOrderId++,
    terms,
    reporting: o.reporting ?? ZERO_REPORTING,
    approval: approvalFor(side, terms.quantity, terms.price, pair.rules.scales, pair.rules.commissions, false),
  };
}

export function cancelCommand(h: Harness, side: Side, orderId: bigint, pair: PairBinding = h.pair): CancelCommand {
  return { kind: 'cancel', pair, side, orderId };
}

/** The outcome, which must be accepted. */
export async function accepted(s: Submission): Promise<Extract<Outcome, { kind: 'accepted' }>> {
  const o = await s.outcome;
  if (o.kind !== 'accepted')
    throw new Error(
      `expected an accepted outcome, got ${JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
    );
  return o;
}

export async function rejected(s: Submission): Promise<Extract<Outcome, { kind: 'rejected' }>> {
  const o = await s.outcome;
  if (o.kind !== 'rejected') throw new Error(`expected a rejected outcome, got ${o.kind}`);
  return o;
}

export function typesOf(events: readonly ChainEvent[]): string[] {
  return events.map((e) => e.type);
}

/** Approves ahead (the adapter records the expiry only of approvals it made itself). */
export async function approveAhead(adapter: WasmAdapter, pair: PairBinding, amount = BIG): Promise<void> {
  for (const role of ['base', 'quote'] as const) {
    const sub = await adapter.ensureAllowance(pair, role, amount);
    if (sub !== null) await accepted(sub);
  }
}

/** Another order book with the sample pair's rules, for a test that needs an empty book of its own. */
export function freshBook(
  h: Harness,
  name: string,
  o: { prefunded?: boolean; pair?: TradingPair } = {},
): { d: BookDeployment; pair: PairBinding } {
  const pair = { ...(o.pair ?? PAIR), id: name };
  const d = deployPair(h.emu, h.venue, { pair, prefunded: o.prefunded ?? true, overrides: OVERRIDES });
  return { d, pair: bindingOf(d, pair) };
}

/** The file's harness, started before its tests and closed after them (`perFile`). */
export function fileHarness(options: Parameters<typeof startHarness>[0] = {}): Harness {
  return perFile(() => startHarness(options));
}
