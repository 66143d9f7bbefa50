/**
 * Follows the wallet's order book and token events with `eth_getLogs` over bounded block ranges, each read by
 * `log-reader.ts`: the order books with the wallet as topic 1 (the `client` of every lifecycle event), and the
 * pairs' tokens with the wallet as `from` or `to` of `Transfer`; for the transactions where our tokens moved
 * with a book, the trade events of the other clients' incoming orders as well (`counterparty-trades.ts`: they
 * carry the execution price of our maker fills). Events come in (block, log index) order, keyed
 * `txHash:logIndex`. They are tentative until `confirmations` blocks are on top of theirs, then delivered
 * again as confirmed. Before reading on, the last block read must still have the hash it had: when it does not
 * (a reorganisation), every tentative event is withdrawn with a `rollback` and the range is read again from
 * the confirmed cursor. The cursor in every notice is the confirmed position (what a restart resumes from); on
 * resume its block hash is checked too. The
 * confirmed cursor is reported as soon as it passes a block the engine waits for, even with no event to
 * deliver: a block a receipt outcome came from (`confirmAt`), or one whose tentative events were withdrawn.
 */
import type { HeadSightings } from '../head-sightings.ts';
import type { CursorStore } from '../ports.ts';
import { CHAIN_NODE, reportedRound } from '../../telemetry/incidents.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { ChainEvent, EventCursor, Follower, FollowerNotice, PairBinding } from '../types.ts';
import type { BlockCache } from './block-cache.ts';
import { rpcFailure } from './json-rpc.ts';
import { decodeContextOf } from './log-decoder.ts';
import { LogReader } from './log-reader.ts';
import type { EvmMetrics } from './metrics.ts';
import { WOKEN } from '../../core/clock.ts';
import type { Clock, FollowerOptions, Sleep } from './options.ts';
import type { EvmRpc } from './rpc-client.ts';

export interface FollowerDeps {
  readonly rpc: EvmRpc;
  readonly blocks: BlockCache;
  readonly clock: Pick<Clock, 'now'>;
  readonly sleep: Sleep;
  readonly options: FollowerOptions;
  readonly metrics: EvmMetrics | null;
  readonly logger: Logger;
  /** Checksummed wallet address (also the key of the persisted cursor). */
  readonly wallet: string;
  readonly state: CursorStore | null;
  /** Heads the receipt watcher's polls saw: a newer one starts the next round, one not newer defers it. */
  readonly heads?: HeadSightings;
}

interface Position {
  readonly height: bigint;
  readonly hash: string;
}

export class EvmFollower implements Follower {
  readonly #deps: FollowerDeps;
  readonly #logs: LogReader;
  readonly #onNotice: (n: FollowerNotice) => Promise<void>;
  readonly #from: Extract<EventCursor, { chain: 'evm' }> | null;
  readonly #abort = new AbortController();
  /** Aborted by `poll()`: the pause between rounds ends early. */
  #wake = new AbortController();
  #confirmed: Position | null = null;
  #tip: Position | null = null;
  #tentative: ChainEvent[] = [];
  /** Heights whose confirmation is reported even without events. */
  readonly #due = new Set<bigint>();
  #reported = -1n;
  #lastLag: bigint | null = null;
  #lastCovered: bigint | null = null;
  #loop: Promise<void> | null = null;
  #stopped = false;

  constructor(
    deps: FollowerDeps,
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (n: FollowerNotice) => Promise<void>,
  ) {
    if (from !== null && from.chain !== 'evm') throw new TypeError('a chain B cursor cannot resume a chain A follower');
    this.#deps = deps;
    this.#logs = new LogReader({ ...deps, ctx: decodeContextOf(pairs, deps.wallet) });
    this.#from = from;
    this.#onNotice = onNotice;
  }

  start(): this {
    this.#loop ??= this.#run();
    return this;
  }

  /** The next round starts now instead of after the poll interval (a round under way finishes first). */
  poll(): void {
    this.#wake.abort(WOKEN);
  }

  /** Reports the confirmed cursor once it reaches `height`, events or not (an outcome's block to be decided). */
  confirmAt(height: bigint): void {
    if (this.#confirmed === null || height > this.#confirmed.height) this.#due.add(height);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let atHead = false;
      await reportedRound(this.#deps.logger, this.#deps.clock, CHAIN_NODE.evm, 'follower round', async () => {
        atHead = await this.round();
      });
      if (this.#stopped) break;
      await this.#pause(AbortSignal.any([this.#abort.signal, this.#wake.signal]), atHead);
      if (this.#wake.signal.aborted) this.#wake = new AbortController();
    }
  }

  /**
   * Between rounds: the poll interval, or until a newer head than the last block read is seen (`heads`). A
   * sighting of that same block since shows nothing new was there then: the interval runs from it. So while
   * transactions are sent (each receipt poll asks the head too) the follower asks the node only for new blocks.
   * Nor does it ask before the next block can be there, by the recent blocks' times (`nextDueMs`): a chain that
   * makes blocks on demand shows short times and is asked as before. A round that failed or stopped short of the
   * head it read waits the interval out, whatever is seen.
   */
  async #pause(signal: AbortSignal, atHead: boolean): Promise<void> {
    const { heads, clock, sleep, options } = this.#deps;
    const tip = this.#tip;
    if (heads === undefined || tip === null || !atHead) {
      await sleep(options.pollIntervalMs, signal).catch(() => undefined);
      return;
    }
    const at = Number(tip.height);
    let quietSince = clock.now();
    for (;;) {
      const seen = heads.last;
      if (seen.height > at || signal.aborted) return;
      if (seen.height === at && seen.atMs > quietSince) quietSince = seen.atMs;
      const due = seen.height === at ? (heads.nextDueMs() ?? 0) : 0;
      const left = Math.max(options.pollIntervalMs - (clock.now() - quietSince), due - clock.now());
      if (left <= 0) return;
      await heads.above(at, left, sleep, signal);
    }
  }

  /** One round: check the last block read, then read up to the head in bounded ranges; true once there. */
  async round(): Promise<boolean> {
    const head = await this.#deps.rpc.block('latest');
    if (head === null) throw rpcFailure('eth_getBlockByNumber', 'malformed', 'the node has no latest block');
    this.#deps.blocks.remember(head);
    this.#deps.heads?.see(Number(head.number), this.#deps.clock.now());
    if (this.#confirmed === null) {
      const start =
        this.#from === null
          ? { height: head.number, hash: head.hash }
          : { height: this.#from.height, hash: this.#from.blockHash };
      this.#confirmed = start;
      this.#tip = start;
      this.#reported = start.height;
      // Starting from nothing, the follower says where it starts before anything else, so that the position is
      // durable at once: a process killed before its first event would otherwise restart from the head of
      // that later moment and never see what happened in between.
      if (this.#from === null) {
        await this.#deliver({ kind: 'events', events: [], confirmed: true, cursor: cursorOf(start) });
        this.#deps.state?.setCursor('evm', this.#deps.wallet, cursorOf(start));
      }
    }
    if (!(await this.#tipStillOnChain(head))) await this.#reorganised();
    const range = BigInt(this.#deps.options.maxBlockRange);
    for (let from = (this.#tip as Position).height + 1n; from <= head.number && !this.#stopped;) {
      const to = from + range - 1n < head.number ? from + range - 1n : head.number;
      if (head.number - from + 1n > range) await this.#lag(head.number - from + 1n);
      if (!(await this.#read(from, to, head))) return false;
      from = to + 1n;
    }
    // Reported when it or the confirmed height changes, so the first round tells a waiting engine that the
    // follower reached the head, and every newly confirmed block tells it how far the events are delivered.
    const behind = head.number - (this.#tip as Position).height;
    if (behind !== this.#lastLag || this.#confirmed?.height !== this.#lastCovered) await this.#lag(behind);
    return !this.#stopped && behind === 0n;
  }

  async #lag(behind: bigint): Promise<void> {
    const covered = (this.#confirmed as Position).height;
    this.#lastLag = behind;
    this.#lastCovered = covered;
    this.#deps.metrics?.followerLag.set(Number(behind));
    await this.#deliver({ kind: 'lag', behind, covered });
  }

  async #tipStillOnChain(head: { number: bigint; hash: string }): Promise<boolean> {
    const tip = this.#tip as Position;
    if (tip.height > head.number) return false;
    if (tip.height === head.number) return tip.hash === head.hash;
    const now = await this.#deps.rpc.block(tip.height);
    return now !== null && now.hash === tip.hash;
  }

  /** The last block read changed: withdraw every tentative event and read again from the confirmed cursor. */
  async #reorganised(): Promise<void> {
    const confirmed = this.#confirmed as Position;
    this.#deps.blocks.forgetFrom(confirmed.height + 1n);
    if (this.#tentative.length > 0) {
      const keys = this.#tentative.map((e) => e.key);
      this.#deps.metrics?.reorgRollbacks.inc();
      this.#deps.logger.warn(
        { from: (confirmed.height + 1n).toString(), withdrawn: keys.length },
        'chain A reorganisation: tentative events withdrawn',
      );
      for (const e of this.#tentative) this.#due.add(e.height);
      await this.#deliver({ kind: 'rollback', keys });
      this.#tentative = [];
    }
    const still = await this.#deps.rpc.block(confirmed.height);
    if (still !== null && still.hash === confirmed.hash) {
      this.#tip = confirmed;
      return;
    }
    // Deeper than the confirmation depth (or the stored cursor's block is gone): confirmed events may be wrong.
    const back =
      confirmed.height > BigInt(this.#deps.options.reorgLookbackBlocks)
        ? confirmed.height - BigInt(this.#deps.options.reorgLookbackBlocks)
        : 0n;
    const at = await this.#deps.rpc.block(back);
    if (at === null) throw rpcFailure('eth_getBlockByNumber', 'malformed', `the node has no block ${back}`);
    this.#deps.blocks.forgetFrom(back + 1n);
    this.#deps.metrics?.followerGaps.inc();
    this.#deps.logger.error(
      { cursor: confirmed.height.toString(), cursorHash: confirmed.hash, rereadFrom: (back + 1n).toString() },
      'chain A confirmed block changed: reconcile in full',
    );
    await this.#deliver({ kind: 'gap', from: cursorOf(confirmed), oldestAvailable: back + 1n });
    this.#confirmed = { height: back, hash: at.hash };
    this.#tip = this.#confirmed;
  }

  /** Reads one range; false when the node's answers disagree with each other (a reorganisation under way). */
  async #read(from: bigint, to: bigint, head: { number: bigint; hash: string }): Promise<boolean> {
    const events = await this.#logs.read(from, to);
    if (events === null) return false;
    const end = to === head.number ? { number: head.number, hash: head.hash } : await this.#deps.blocks.header(to);
    const limit = head.number - BigInt(this.#deps.options.confirmations);
    const confirmed = this.#confirmed as Position;
    const promoted = [...this.#tentative.filter((e) => e.height <= limit), ...events.filter((e) => e.height <= limit)];
    const fresh = events.filter((e) => e.height > limit);
    const upTo = to < limit ? to : limit;
    let next = confirmed;
    if (upTo > confirmed.height)
      next = { height: upTo, hash: upTo === end.number ? end.hash : (await this.#deps.blocks.header(upTo)).hash };
    const due = [...this.#due].filter((h) => h <= next.height);
    if (
      promoted.length > 0 ||
      due.length > 0 ||
      next.height - this.#reported >= BigInt(this.#deps.options.cursorHeartbeatBlocks)
    ) {
      await this.#deliver({ kind: 'events', events: promoted, confirmed: true, cursor: cursorOf(next) });
      for (const h of due) this.#due.delete(h);
      this.#reported = next.height;
      this.#deps.state?.setCursor('evm', this.#deps.wallet, cursorOf(next));
    }
    this.#confirmed = next;
    this.#tentative = this.#tentative.filter((e) => e.height > limit);
    if (fresh.length > 0) {
      await this.#deliver({ kind: 'events', events: fresh, confirmed: false, cursor: cursorOf(next) });
      this.#tentative.push(...fresh);
    }
    for (const e of events) this.#deps.metrics?.eventsDelivered.inc({ type: e.type });
    this.#tip = { height: end.number, hash: end.hash };
    return true;
  }

  async #deliver(notice: FollowerNotice): Promise<void> {
    await this.#onNotice(notice);
  }
}

function cursorOf(p: Position): EventCursor {
  return { chain: 'evm', height: p.height, blockHash: p.hash };
}

/** The cursor a follower persisted in the state store, or null. */
export function storedCursor(state: CursorStore, wallet: string): EventCursor | null {
  const c = state.cursor('evm', wallet) as { chain?: unknown; height?: unknown; blockHash?: unknown } | null;
  if (c === null || c.chain !== 'evm' || typeof c.height !== 'string' || typeof c.blockHash !== 'string') return null;
  return { chain: 'evm', height: BigInt(c.height), blockHash: c.blockHash };
}
