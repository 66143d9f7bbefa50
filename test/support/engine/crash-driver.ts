/**
 * A bot process for the crash test: the order engine of one wallet on one chain (real adapter, real sandbox
 * node), a seeded busy order flow (places, replaces, cancels), and its state in one SQLite file. It prints a
 * JSON line `ready` once reconciliation succeeded and starts the flow when its standard input says `go`.
 * `DLTMM_CRASH_AT=<point>:<n>` kills the process itself (SIGKILL) the n-th time it reaches a named point:
 * `after-record` (order stored, nothing signed), `after-journal` (signed and journalled, not broadcast),
 * `after-broadcast` (the transaction left the process, its fate not recorded).
 *
 *   node test/support/engine/crash-driver.ts <config.json>
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ChainAdapter, PairBinding } from '../../../src/chains/types.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { parseTradingPair } from '../../../src/core/pair.ts';
import { derivePairRules, type PairOverrides } from '../../../src/core/rules.ts';
import { createWalletEngine } from '../../../src/engine/wallet/assemble.ts';
import { groupCommits } from '../../../src/store/database.ts';
import { openStore } from '../../../src/store/store.ts';
import { TxJournal, type TxRecord } from '../../../src/store/tx-journal.ts';
import { createLogger } from '../../../src/telemetry/logger.ts';
import { Metrics } from '../../../src/telemetry/metrics.ts';
import { between, pick, seeded } from './random.ts';
import { systemClock } from '../../../src/core/system-clock.ts';

export interface DriverConfig {
  readonly chain: 'evm' | 'wasm';
  readonly rpcUrl: string;
  readonly chainId?: number;
  readonly networkPassphrase?: string;
  readonly key: string;
  /** Chain B: secret seeds of funded channel accounts used as transaction sources. */
  readonly channels?: readonly string[];
  readonly pair: unknown;
  readonly overrides?: PairOverrides;
  readonly addresses: { readonly orderBook: string; readonly base: string; readonly quote: string };
  readonly store: string;
  readonly seed: number;
  /** Human prices the flow quotes at: bids from `bids`, asks from `asks` (bids strictly below asks). */
  readonly bids: readonly string[];
  readonly asks: readonly string[];
  readonly sizes: readonly string[];
  readonly maxLive: number;
}

type Point = 'after-record' | 'after-journal' | 'after-broadcast';

const mark = (phase: string) =>
  process.env.DLTMM_CRASH_TIMING === '1' &&
  process.stderr.write(`timing ${phase} ${Math.round(performance.now())} at ${Date.now()}\n`);
mark('imports');
const config = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as DriverConfig;
const [crashPoint, crashCount] = (process.env.DLTMM_CRASH_AT ?? ':').split(':') as [string, string];
const reached = new Map<string, number>();
const out = (line: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`);

function point(name: Point, detail: Record<string, unknown> = {}): void {
  const n = (reached.get(name) ?? 0) + 1;
  reached.set(name, n);
  if (name === crashPoint && String(n) === crashCount) {
    out({ type: 'crash', point: name, ...detail });
    process.kill(process.pid, 'SIGKILL');
  }
}

/** The journal the adapter writes, with the `after-journal` kill point right after the write. */
class HookedJournal extends TxJournal {
  override recordSigned(tx: Omit<TxRecord, 'status' | 'replacedBy' | 'createdMs' | 'updatedMs'>): void {
    super.recordSigned(tx);
    if (tx.kind === 'place') point('after-journal', { txHash: tx.txHash, clientOrderId: tx.clientOrderId });
  }
}

const store = openStore(config.store);
// As `dlt-mm run` opens it: commits grouped by turn, a signed transaction committed before it leaves.
groupCommits(store.db, (e) => {
  process.stderr.write(`the state file could not be written: ${String(e)}\n`);
  process.exit(74);
});
const journal = new HookedJournal(store.db, Date.now);
const logger = createLogger({
  level: (process.env.DLTMM_LOG_LEVEL as 'info' | undefined) ?? 'warn',
  destination: process.stderr,
});
const metrics = new Metrics();
const tradingPair = parseTradingPair(config.pair);
const binding: PairBinding = {
  pairId: tradingPair.id,
  symbol: tradingPair.symbol ?? tradingPair.id,
  chain: config.chain,
  orderBook: config.addresses.orderBook,
  baseToken: config.addresses.base,
  quoteToken: config.addresses.quote,
  rules: derivePairRules(tradingPair, config.overrides ?? {}),
};

// Each chain's adapter is loaded only when used: a restart is on the clock.
const adapter: ChainAdapter =
  config.chain === 'evm'
    ? new (await import('../../../src/chains/evm/evm-adapter.ts')).EvmAdapter({
        rpcUrl: config.rpcUrl,
        chainId: BigInt(config.chainId ?? 80002),
        privateKey: config.key,
        journal,
        state: store.state,
        logger,
        follower: { confirmations: 1, pollIntervalMs: 100 },
        receipts: { pollIntervalMs: 100 },
      })
    : new (await import('../../../src/chains/wasm/wasm-adapter.ts')).WasmAdapter({
        rpcUrl: config.rpcUrl,
        networkPassphrase: config.networkPassphrase as string,
        tradingKey: (await import('@stellar/stellar-sdk')).Keypair.fromSecret(config.key),
        channelKeys: await Promise.all(
          (config.channels ?? []).map(async (k) => (await import('@stellar/stellar-sdk')).Keypair.fromSecret(k)),
        ),
        // The sandbox closes a ledger every few hundred ms, each at least a second after the last, so its
        // clock runs ahead of ours: a wide time bound keeps transactions valid for the length of the test.
        txTimeoutSeconds: 900,
        journal,
        state: store.state,
        logger,
        pollIntervalMs: 100,
        ledgerCloseMs: 300,
        follower: { pollIntervalMs: 100 },
      });

// The kill points around the broadcast, without touching the engine: the command reaches the adapter only
// after the order is stored, and `submit` resolves once the transaction has left the process.
const submit = adapter.submit.bind(adapter);
adapter.submit = async (command) => {
  if (command.kind === 'place') point('after-record', { clientOrderId: command.clientOrderId });
  const s = await submit(command);
  if (command.kind === 'place') point('after-broadcast', { txHash: s.txHash, clientOrderId: command.clientOrderId });
  return s;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const engine = await createWalletEngine({
  adapter,
  pairs: [binding],
  store,
  marketMaker: false,
  logger,
  metrics,
  clock: systemClock,
  catchUpTimeoutMs: 10_000,
  settleDelaysMs: [200, 400, 800, 1_600, 3_200],
  inventory: { coverageTimeoutMs: 10_000 },
});

mark('created');
let report = await engine.start();
mark('reconciled');
// Ready to trade: reconciled, and nothing pauses the pair (parked maker fills wait for their cancellations).
for (let i = 0; i < 40 && !(report.ready && report.pausedPairs.length === 0); i++) {
  await sleep(300);
  report = await engine.reconcile();
}
out({
  type: 'ready',
  ready: report.ready,
  settled: report.settled,
  unknown: report.unknown,
  adopted: report.adopted,
  foreign: report.foreign.length,
  pausedPairs: report.pausedPairs,
  mismatched: report.inventory.comparable ? report.inventory.mismatched : 'not comparable',
  alerts: store.alerts.open().map((a) => ({ kind: a.kind, message: a.message })),
});

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === 'go') break;
}

const random = seeded(config.seed);
const m = engine;
for (;;) {
  const live = store.orders
    .live({ wallet: adapter.wallet })
    .filter((o) => o.status === 'resting' || o.status === 'partiallyFilled');
  const side = pick(random, ['buy', 'sell'] as const);
  const price = new Decimal(pick(random, side === 'buy' ? config.bids : config.asks));
  const quantity = new Decimal(pick(random, config.sizes));
  const what =
    live.length === 0
      ? 'place'
      : live.length >= config.maxLive
        ? pick(random, ['cancel', 'replace'] as const)
        : pick(random, ['place', 'place', 'cancel', 'replace'] as const);
  try {
    if (what === 'place') await m.place({ pairId: binding.pairId, side, quantity, price });
    else if (what === 'cancel') await m.cancel(pick(random, live).clientOrderId);
    else {
      const old = pick(random, live);
      await m.replace(old.clientOrderId, {
        pairId: binding.pairId,
        side: old.side,
        quantity,
        price: new Decimal(pick(random, old.side === 'buy' ? config.bids : config.asks)),
      });
    }
  } catch (e) {
    logger.warn({ err: e, what }, 'flow command refused');
  }
  await sleep(between(random, 10, 60));
}
