/**
 * What the bot does on its clock and to every wallet at once: the polls (the tick, trade information spread over
 * its period, the book's phase, a halted book watched closely, the inventory check, the trade reconciliation),
 * and at the end cancelling every order and waiting for every outcome to settle.
 */
import type { Clock, Timer } from '../../core/clock.ts';
import { CHAIN_NODE, incidentsOf, isTransportFailure } from '../../telemetry/incidents.ts';
import { isDltError } from '../../core/errors.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import type { BotFeed } from './loop-types.ts';
import type { PairStatus } from '../../market/status.ts';

/** How often a halted book's phase is read (when the ordinary phase poll is slower). */
const HALT_POLL_MS = 500;

/**
 * The trade information poll's period is cut into this many slots; each pair is read in its own slot (pairs in
 * the order they were added, one slot after another). Sixty-four pairs read at one moment each took a new
 * connection of their own, idle past the keep-alive by the next poll; four at a time keep a few connections busy.
 */
const TRADE_INFO_SLOTS = 16;

function isHalted(s: PairStatus): boolean {
  return (
    s.tradingStatus?.includes('HALT') === true ||
    s.phase === 3 ||
    s.phase === 4 ||
    s.phase === 'ManualHalt' ||
    s.phase === 'AutomaticHalt'
  );
}

export interface PollTimings {
  readonly tickMs: number;
  readonly tradeInfoPollMs: number;
  readonly phasePollMs: number;
  readonly inventoryCheckMs: number;
  /** The venue's list of each wallet's trades against its fills; 0 or absent: never. */
  readonly tradeCheckMs?: number;
}

/** One wallet's trade reconciliation (engine/wallet/trades/trade-check.ts), run while its wallet is ready. */
export interface WalletTradeCheck {
  readonly engine: Pick<WalletEngine, 'readiness' | 'chain'>;
  check(): Promise<unknown>;
}

export interface Polled {
  statuses(): Iterable<{
    readonly current: PairStatus;
    refreshTradeInfo(nowMs: number): Promise<void>;
    refreshPhase(): Promise<void>;
  }>;
  readonly engines: readonly WalletEngine[];
  /** Every pair's loop that has not recomputed for `idleMs` does. */
  tick(idleMs: number): void;
}

/** Starts the polls on `clock`; a period of 0 or less is no poll. Cancel the timers to stop them. */
export function startPolls(
  clock: Clock,
  t: PollTimings,
  p: Polled,
  logger: Logger,
  tradeChecks: readonly WalletTradeCheck[] = [],
): Timer[] {
  const timers: Timer[] = [];
  const every = (ms: number, fn: () => void) => {
    if (ms > 0) timers.push(clock.setRepeating(fn, ms));
  };
  every(t.tickMs, () => p.tick(t.tickMs));
  let slot = 0;
  every(t.tradeInfoPollMs / TRADE_INFO_SLOTS, () => {
    const now = slot++ % TRADE_INFO_SLOTS;
    let i = 0;
    for (const s of p.statuses()) if (i++ % TRADE_INFO_SLOTS === now) void s.refreshTradeInfo(clock.now());
  });
  every(t.phasePollMs, () => {
    for (const s of p.statuses()) void s.refreshPhase();
  });
  // A halted book is watched closely, so that quoting (and the measure) resumes with the book.
  if (t.phasePollMs > HALT_POLL_MS) {
    every(HALT_POLL_MS, () => {
      for (const s of p.statuses()) if (isHalted(s.current)) void s.refreshPhase();
    });
  }
  every(t.inventoryCheckMs, () => {
    for (const e of p.engines)
      if (e.readiness.ready)
        void e
          .verifyInventory()
          .then(() => incidentsOf(logger).succeeded('inventory check', clock.now()))
          .catch((err: unknown) => {
            // A node that fails the reads is the node's incident; any other failure the check's own.
            const kind = isDltError(err) && isTransportFailure(err.code) ? CHAIN_NODE[e.chain] : 'inventory check';
            incidentsOf(logger).failed(kind, clock.now(), `${e.chain} inventory check`, err);
          });
  });
  every(t.tradeCheckMs ?? 0, () => {
    for (const c of tradeChecks)
      if (c.engine.readiness.ready)
        void c
          .check()
          .then(() => incidentsOf(logger).succeeded('trade reconciliation', clock.now()))
          .catch((err: unknown) => {
            // The venue's own failures are its incident (the transport reports them); any other the check's.
            const kind = isDltError(err) && isTransportFailure(err.code) ? 'venue REST' : 'trade reconciliation';
            incidentsOf(logger).failed(kind, clock.now(), `${c.engine.chain} trade reconciliation`, err);
          });
  });
  return timers;
}

/** Cancels every live order of every wallet, waiting until final or `timeoutMs`; true when nothing is left open. */
export async function cancelEverything(
  wallets: readonly { readonly id: string; readonly engine: WalletEngine }[],
  logger: Logger,
  timeoutMs: number,
): Promise<boolean> {
  const reports = await Promise.all(
    wallets.map((w) =>
      w.engine.cancelAll({ timeoutMs }).catch((e: unknown) => {
        logger.error({ err: e, wallet: w.id }, 'cancel-all failed');
        return null;
      }),
    ),
  );
  const open = reports.reduce((n, r) => n + (r === null ? 1 : r.open.length), 0);
  logger.info({ stillOpen: open }, open === 0 ? 'every order cancelled' : 'some orders are still open');
  return open === 0;
}

/** Waits (at most `ms`) for every outcome every wallet sent; names what the chain has not decided. True when all settled. */
export async function drainEverything(engines: readonly WalletEngine[], logger: Logger, ms: number): Promise<boolean> {
  const open = await Promise.all(engines.map(async (engine) => ({ engine, open: await engine.drain(ms) })));
  for (const { engine, open: txs } of open) {
    if (txs.length === 0) continue;
    logger.error(
      {
        wallet: engine.wallet,
        chain: engine.chain,
        unsettled: txs.map((t) => ({ txHash: t.txHash, kind: t.kind, ...t.context })),
      },
      'shutdown deadline passed before the chain decided these transactions; the next start settles them from the journal',
    );
  }
  return open.every((x) => x.open.length === 0);
}

/**
 * Follows each wallet's readiness and activity for its pairs: a pair is paused as `reconciling` while its
 * wallet is not ready and recomputed when it becomes ready; activity (fills, transfers, outcomes) goes to
 * `activity`. Returns the unsubscribers.
 */
export function followWallets(
  wallets: ReadonlyArray<{ readonly id: string; readonly engine: WalletEngine }>,
  pairs: readonly LoopPair[],
  to: {
    reconciling(key: string, on: boolean): void;
    trigger(key: string): void;
    activity(keys: readonly string[]): void;
    readonly logger: Logger;
  },
): Array<() => void> {
  return wallets.flatMap((w) => {
    const mine = new Map(pairs.filter((p) => p.walletId === w.id).map((p) => [p.pairId, p.key]));
    const follow = (ready: boolean) => {
      for (const key of mine.values()) to.reconciling(key, !ready);
    };
    follow(w.engine.readiness.ready);
    return [
      w.engine.onReadiness((r) => {
        follow(r.ready);
        if (r.ready) {
          to.logger.info({ wallet: w.engine.wallet, chain: w.engine.chain }, 'wallet reconciled; its pairs trade');
          for (const key of mine.values()) to.trigger(key);
        }
      }),
      w.engine.onActivity((a) => to.activity(a.pairIds.flatMap((id) => mine.get(id) ?? []))),
    ];
  });
}

/** A pair's loop: the wallet that quotes the pair, the venue's pair id and the loop's key (`PairLoop.key`). */
export interface LoopPair {
  readonly walletId: string;
  readonly pairId: string;
  readonly key: string;
}

/**
 * The loops of the pairs: each goes by its pair id, except those of a pair that several of our wallets quote,
 * after the first, which go by `<pair id>@<wallet id>` (the risk monitor, metrics and logs tell them apart).
 */
export function loopPairs(
  pairs: ReadonlyArray<{ readonly walletId: string; readonly binding: { readonly pairId: string } }>,
): LoopPair[] {
  const seen = new Set<string>();
  return pairs.map((p) => {
    const pairId = p.binding.pairId;
    const key = seen.has(pairId) ? `${pairId}@${p.walletId}` : pairId;
    seen.add(pairId);
    return { walletId: p.walletId, pairId, key };
  });
}

/** The market data reaches every loop of its pair: book messages (the risk monitor's freshness too), staleness. */
export function followFeed(
  feed: BotFeed,
  pairs: ReadonlyArray<{ readonly binding: { readonly symbol: string; readonly pairId: string } }>,
  loops: () => Iterable<{ readonly pairId: string; readonly key: string; trigger(marketEventMs?: number): void }>,
  marketData: (key: string, atMs: number) => void,
): void {
  const symbolToPair = new Map(pairs.map((p) => [p.binding.symbol, p.binding.pairId]));
  const each = (symbol: string, fn: (loop: { key: string; trigger(ms?: number): void }) => void) => {
    const pairId = symbolToPair.get(symbol);
    for (const loop of loops()) if (loop.pairId === pairId) fn(loop);
  };
  feed.on('book', (book) =>
    each(book.symbol, (loop) => {
      marketData(loop.key, book.receivedAt);
      loop.trigger(book.receivedAt);
    }),
  );
  feed.on('stale', (e) => each(e.symbol, (loop) => loop.trigger()));
  feed.on('fresh', (symbol) => each(symbol, (loop) => loop.trigger()));
  for (const [symbol, pairId] of symbolToPair) feed.add({ symbol, pairId });
}

/** How many pairs of each wallet share each quote token (`<wallet id>:<quote token>`): they share its balance. */
export function pairsPerQuote(
  pairs: ReadonlyArray<{ readonly walletId: string; readonly binding: { readonly quoteToken: string } }>,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of pairs) {
    const key = `${p.walletId}:${p.binding.quoteToken}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
