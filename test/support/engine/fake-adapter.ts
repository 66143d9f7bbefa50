/**
 * A faithful in-memory `ChainAdapter` over the fake venue: two-phase submissions (the transaction is journalled,
 * then leaves the process; its outcome comes when a block includes it), explicit accepted / rejected / unknown
 * outcomes, `settle` by hash, and a follower that delivers the wallet's events block by block from a cursor,
 * after a configurable confirmation depth, with tentative deliveries, rollbacks and retention gaps on demand.
 * Faults are queued per submission. With `blocks`, outcomes name the block of their inclusion as chain A
 * receipts do, and a follower that finds a block it delivered replaced reports a `gap` from the fork (as the
 * chain A follower does for a reorganisation deeper than its confirmation depth) and reads on from there.
 */
import { DltError } from '../../../src/core/errors.ts';
import { quantityToRaw, priceToRaw } from '../../../src/core/units.ts';
import { submitOrder, cancelOrder } from '../../../src/sandbox/matching/engine.ts';
import type {
  Allowance,
  Balances,
  BalancesAt,
  ChainAdapter,
  ChainEvent,
  Command,
  EventCursor,
  Follower,
  FollowerNotice,
  InFlightTx,
  OnChainPairState,
  OrderProbe,
  Outcome,
  PairBinding,
  Submission,
} from '../../../src/chains/types.ts';
import type { TxJournal } from '../../../src/store/tx-journal.ts';
import type { Block, FakeVenue, TxRecord } from './fake-venue.ts';

/**
 * `unknown`: sent and included, but the outcome is reported unknown. `drop`: journalled but never reaches the
 * chain (the outcome is unknown; settling says expired after `expiryBlocks`). `refuse`: the node refuses it
 * before inclusion. `throw`: submit throws before signing. `throw-after-journal`: journalled and broadcast,
 * then submit throws (a connection reset during the broadcast).
 */
export type Fault = 'unknown' | 'drop' | 'refuse' | 'throw' | 'throw-after-journal';

export interface FakeAdapterOptions {
  readonly journal?: TxJournal;
  /** Blocks a block waits before its events are confirmed; default 0. */
  readonly confirmations?: number;
  /** Deliver other clients' trade events of transactions that moved our tokens, as the real followers do; default true (false: the blind case). */
  readonly foreignTrades?: boolean;
  /** Blocks after which a dropped transaction counts as expired; default 3. */
  readonly expiryBlocks?: number;
  /** Oldest height the follower can still deliver from (retention window); default 0. */
  readonly retainedFrom?: () => bigint;
  /** Balances can be read as of an earlier block (chain A keeps past state); default false: the latest only (chain B). */
  readonly pastReads?: boolean;
  /** Outcomes name their block (chain A receipts); default false. */
  readonly blocks?: boolean;
}

const bookEvent = (e: ChainEvent) => e.type !== 'Transfer';

export class FakeChainAdapter implements ChainAdapter {
  readonly chain: 'evm' | 'wasm';
  readonly nativeDecimals: number;
  readonly wallet: string;
  readonly faults: Fault[] = [];
  readonly sent: Array<{ txHash: string; command: Command }> = [];
  readonly #venue: FakeVenue;
  readonly #options: FakeAdapterOptions;
  readonly #waiting = new Map<string, (o: Outcome) => void>();
  readonly #unsubscribe: () => void;
  #nonce = 0n;
  #deliveries: Promise<void> = Promise.resolve();
  #held = false;
  #release: Array<() => void> = [];
  readonly #stalled = new Map<Command['kind'], Promise<void>>();
  /** Outcomes of included transactions held back (a node slow to answer receipts); null: none held. */
  #outcomesHeld: Array<() => void> | null = null;
  /** Sent, outcome awaited: what `unsettled()` reports. */
  readonly #unsettled = new Map<string, InFlightTx>();
  /** The venue's balances as each block left them, for reads of an earlier block. */
  readonly #history = new Map<bigint, Map<string, bigint>>();

  constructor(venue: FakeVenue, wallet: string, options: FakeAdapterOptions = {}) {
    this.#venue = venue;
    this.chain = venue.chain;
    this.nativeDecimals = venue.chain === 'evm' ? 18 : 7;
    this.wallet = wallet;
    this.#options = options;
    this.#history.set(venue.height, new Map(venue.balances));
    this.#unsubscribe = venue.onBlock((b) => {
      this.#history.set(b.height, new Map(venue.balances));
      this.#included(b);
    });
  }

  #included(block: Block): void {
    for (const tx of block.txs) {
      const resolve = this.#waiting.get(tx.txHash);
      if (resolve === undefined) continue;
      this.#waiting.delete(tx.txHash);
      const settle = () => {
        this.#unsettled.delete(tx.txHash);
        resolve(this.#outcomeOf(tx, block.height));
      };
      if (this.#outcomesHeld === null) settle();
      else this.#outcomesHeld.push(settle);
    }
  }

  #outcomeOf(tx: TxRecord, height: bigint): Outcome {
    const hash = this.#venue.blocks[Number(height) - 1]?.hash as string;
    const block = this.#options.blocks === true ? { block: { height, hash } } : {};
    if (!tx.ok) return { kind: 'rejected', txHash: tx.txHash, error: tx.error as DltError, included: true, ...block };
    return {
      kind: 'accepted',
      txHash: tx.txHash,
      height,
      orderId: tx.orderId,
      events: tx.events.filter(bookEvent),
      ...block,
    };
  }

  async readPairState(pair: PairBinding): Promise<OnChainPairState> {
    const p = this.#venue.pair(pair.pairId).book.params;
    return {
      phase: 1,
      open: true,
      scales: p.scales,
      makerBps: p.makerBps,
      takerBps: p.takerBps,
      marketMakerBps: p.marketMakerBps,
      prefunded: p.prefunded,
    };
  }

  async readBalances(pair: PairBinding): Promise<Balances> {
    return {
      base: this.#venue.balance(pair.baseToken, this.wallet),
      quote: this.#venue.balance(pair.quoteToken, this.wallet),
      native: 10n ** 18n,
    };
  }

  /** Balances as of block `at` with `pastReads` (chain A), otherwise the latest (chain B), and their height. */
  async readBalancesAt(pair: PairBinding, at: bigint | null): Promise<BalancesAt> {
    const past = this.#options.pastReads === true && at !== null ? this.#history.get(at) : undefined;
    if (past === undefined) return { ...(await this.readBalances(pair)), height: this.#venue.height };
    const of = (token: string) => past.get(`${token}:${this.wallet}`) ?? 0n;
    return { base: of(pair.baseToken), quote: of(pair.quoteToken), native: 10n ** 18n, height: at as bigint };
  }

  async readAllowance(): Promise<Allowance> {
    return { amount: 1n << 200n, expiresAtLedger: null };
  }

  async ensureReady(): Promise<void> {}

  async ensureAllowance(): Promise<Submission | null> {
    return null;
  }

  /**
   * Commands of a kind wait in the adapter (a congested chain: no free source, a back-off) until the returned
   * function is called; one whose signal aborts meanwhile is refused unsigned, as the real adapters do.
   */
  stall(kind: Command['kind']): () => void {
    let open!: () => void;
    this.#stalled.set(kind, new Promise<void>((resolve) => (open = resolve)));
    return () => {
      this.#stalled.delete(kind);
      open();
    };
  }

  stallPlacements(): () => void {
    return this.stall('place');
  }

  async submit(command: Command): Promise<Submission> {
    const stalled = this.#stalled.get(command.kind);
    if (stalled !== undefined) {
      const signal = command.signal;
      const withdrawn = new Promise<'withdrawn'>((resolve) =>
        signal?.addEventListener('abort', () => resolve('withdrawn'), { once: true }),
      );
      if (signal?.aborted || (await Promise.race([stalled, withdrawn])) === 'withdrawn') {
        const error =
          signal?.reason instanceof DltError ? signal.reason : new DltError('E_ORDER_WITHDRAWN', 'withdrawn');
        return { txHash: null, outcome: Promise.resolve({ kind: 'rejected', txHash: null, error, included: false }) };
      }
    }
    const fault = this.faults.shift();
    if (fault === 'throw') throw new DltError('E_CHAIN_RPC', 'node unreachable before signing');
    const txHash = this.#venue.nextTxHash();
    this.#options.journal?.recordSigned({
      txHash,
      chain: this.chain,
      wallet: this.wallet,
      source: this.wallet,
      sequence: this.#nonce++,
      kind: command.kind,
      clientOrderId: command.kind === 'place' ? command.clientOrderId : null,
      raw: JSON.stringify({ kind: command.kind, pair: command.pair.pairId }),
    });
    this.sent.push({ txHash, command });
    if (fault === 'refuse') {
      return {
        txHash,
        outcome: Promise.resolve({
          kind: 'rejected',
          txHash,
          error: new DltError('E_CHAIN_TX_REFUSED', 'node refused the transaction'),
          included: false,
        }),
      };
    }
    if (fault === 'drop') {
      this.#venue.missing.set(txHash, this.#venue.height);
      return { txHash, outcome: Promise.resolve({ kind: 'unknown', txHash, reason: 'no answer from the node' }) };
    }
    this.#enqueue(txHash, command);
    if (fault === 'throw-after-journal') throw new DltError('E_CHAIN_RPC', 'connection reset during the broadcast');
    if (fault === 'unknown')
      return { txHash, outcome: Promise.resolve({ kind: 'unknown', txHash, reason: 'receipt timed out' }) };
    const context =
      command.kind === 'place'
        ? { pair: command.pair.pairId, clientOrderId: command.clientOrderId.toString() }
        : { pair: command.pair.pairId, orderId: command.orderId.toString() };
    this.#unsettled.set(txHash, { txHash, kind: command.kind, context });
    return { txHash, outcome: new Promise<Outcome>((resolve) => this.#waiting.set(txHash, resolve)) };
  }

  #enqueue(txHash: string, command: Command): void {
    const s = command.pair.rules.scales;
    if (command.kind === 'place') {
      const t = command.terms;
      this.#venue.enqueue(txHash, this.wallet, command.pair.pairId, ({ book, ledger }) => {
        const r = submitOrder(book, this.#ctx(ledger), this.wallet, t.side, () => ({
          quantity: quantityToRaw(t.quantity, s),
          price: priceToRaw(t.price, s),
          crossId: command.clientOrderId,
          type: t.type,
          condition: t.condition,
          validity: t.validity,
          lifetimeDays: t.lifetimeDays,
          reportingData: new Uint8Array([0]),
        }));
        return { events: r.events, orderId: r.orderId };
      });
    } else {
      this.#venue.enqueue(txHash, this.wallet, command.pair.pairId, ({ book, ledger }) => ({
        events: cancelOrder(book, this.#ctx(ledger), this.wallet, command.side, command.orderId, 'ByParticipant'),
        orderId: null,
      }));
    }
  }

  #ctx(ledger: Parameters<typeof submitOrder>[1]['ledger']) {
    return {
      ledger,
      nowSeconds: 1_800_000_000n + this.#venue.height,
      client: (a: string) => ({
        canBuy: true,
        canSell: true,
        canCancel: true,
        isMarketMaker: this.#venue.marketMakers.has(a),
      }),
    };
  }

  async settle(txHash: string): Promise<Outcome> {
    const tx = this.#venue.tx(txHash);
    if (tx !== undefined) return this.#outcomeOf(tx, tx.height);
    if (this.#venue.pendingHashes().includes(txHash)) return { kind: 'unknown', txHash, reason: 'pending' };
    // Never seen: it expires a few blocks after its absence was first noticed (its time bound passes).
    const missingSince = this.#venue.missing.get(txHash) ?? this.#venue.height;
    this.#venue.missing.set(txHash, missingSince);
    if (this.#venue.height >= missingSince + BigInt(this.#options.expiryBlocks ?? 3)) {
      return {
        kind: 'rejected',
        txHash,
        error: new DltError('E_CHAIN_TX_EXPIRED', 'expired without inclusion'),
        included: false,
      };
    }
    return { kind: 'unknown', txHash, reason: 'not seen yet' };
  }

  /** The wallet's events of one block, as a decoder filtering by client and by the wallet's transfers sees them. */
  eventsOf(block: Block): ChainEvent[] {
    return block.txs.flatMap((tx) => {
      const ours = tx.events.filter((e) =>
        e.type === 'Transfer' ? e.from === this.wallet || e.to === this.wallet : e.client === this.wallet,
      );
      const moved = ours.some((e) => e.type === 'Transfer');
      const trades =
        (this.#options.foreignTrades ?? true) && moved
          ? tx.events.filter((e) => e.type === 'Trade' && e.client !== this.wallet)
          : [];
      return tx.events.filter((e) => ours.includes(e) || trades.includes(e));
    });
  }

  follow(
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (n: FollowerNotice) => Promise<void>,
  ): Follower {
    const ids = new Set(pairs.map((p) => p.pairId));
    let next = from === null ? this.#venue.height + 1n : from.height + 1n;
    // Like the real followers, one that starts from nothing says where it starts before anything else.
    let announce = from === null;
    const run = { stopped: false };
    const depth = BigInt(this.#options.confirmations ?? 0);
    const delivered = new Map<bigint, string>();
    const tentative = new Map<bigint, { hash: string; keys: string[] }>();
    const round = async () => {
      while (this.#held) await new Promise<void>((r) => this.#release.push(r));
      if (run.stopped) return;
      if (announce) {
        announce = false;
        const height = next - 1n;
        await onNotice({
          kind: 'events',
          events: [],
          confirmed: true,
          cursor: { chain: 'evm', height, blockHash: `0xb${height.toString(16).padStart(63, '0')}` },
        });
      }
      const oldest = this.#options.retainedFrom?.() ?? 0n;
      if (from !== null && next < oldest) {
        await onNotice({ kind: 'gap', from, oldestAvailable: oldest });
        next = oldest;
      }
      const last = next - 1n;
      if (delivered.has(last) && this.#venue.blocks[Number(last) - 1]?.hash !== delivered.get(last)) {
        // A block delivered as confirmed was replaced: read again from the fork.
        let fork = last;
        while (fork > 0n && this.#venue.blocks[Number(fork) - 1]?.hash !== delivered.get(fork)) fork--;
        await onNotice({
          kind: 'gap',
          from: { chain: 'evm', height: last, blockHash: delivered.get(last) as string },
          oldestAvailable: fork + 1n,
        });
        for (const h of [...delivered.keys()]) if (h > fork) delivered.delete(h);
        next = fork + 1n;
      }
      // Tentative blocks replaced since they were delivered: their events are withdrawn.
      const replaced = [...tentative].filter(([h, t]) => this.#venue.blocks[Number(h) - 1]?.hash !== t.hash);
      if (replaced.length > 0) {
        for (const [h] of replaced) tentative.delete(h);
        await onNotice({ kind: 'rollback', keys: replaced.flatMap(([, t]) => t.keys) });
      }
      while (!run.stopped && next <= this.#venue.height - depth) {
        const block = this.#venue.blocks[Number(next) - 1] as Block;
        const events = this.eventsOf(block).filter((e) => ids.has(e.pairId) || e.type === 'Transfer');
        const cursor: EventCursor = { chain: 'evm', height: block.height, blockHash: block.hash };
        // Every block is reported, empty or not (a cursor heartbeat of one block).
        await onNotice({ kind: 'events', events, confirmed: true, cursor });
        delivered.set(block.height, block.hash);
        tentative.delete(block.height);
        next++;
      }
      // Blocks above the confirmation depth: their events once, as tentative, as the real followers deliver them.
      for (let h = next; !run.stopped && h <= this.#venue.height; h++) {
        const block = this.#venue.blocks[Number(h) - 1] as Block;
        if (tentative.get(h)?.hash === block.hash) continue;
        const events = this.eventsOf(block).filter((e) => ids.has(e.pairId) || e.type === 'Transfer');
        tentative.set(h, { hash: block.hash, keys: events.map((e) => e.key) });
        const last = this.#venue.blocks[Number(next) - 2];
        const cursor: EventCursor = { chain: 'evm', height: next - 1n, blockHash: last?.hash ?? '0x' };
        if (events.length > 0) await onNotice({ kind: 'events', events, confirmed: false, cursor });
      }
      if (!run.stopped) await onNotice({ kind: 'lag', behind: this.#venue.height - (next - 1n), covered: next - 1n });
    };
    const schedule = () => {
      this.#deliveries = this.#deliveries.then(round).catch(() => {});
    };
    const off = this.#venue.onBlock(schedule);
    schedule();
    return {
      // The fake follower delivers at every block; a round now finds nothing new.
      poll: () => undefined,
      stop: async () => {
        run.stopped = true;
        off();
        await this.#deliveries;
      },
    };
  }

  /** Holds the follower's deliveries (a follower lagging behind the outcomes) until `resume()`. */
  hold(): void {
    this.#held = true;
  }

  resume(): Promise<void> {
    this.#held = false;
    for (const r of this.#release.splice(0)) r();
    return this.#deliveries;
  }

  /**
   * Outcomes of transactions included from now on wait until `releaseOutcomes()`, while the follower still
   * delivers their events (the follower learns of a cancellation before the adapter's own poll does).
   */
  holdOutcomes(): void {
    this.#outcomesHeld ??= [];
  }

  releaseOutcomes(): void {
    const held = this.#outcomesHeld ?? [];
    this.#outcomesHeld = null;
    for (const settle of held) settle();
  }

  /** Resolves when every follower delivery scheduled so far has run. */
  delivered(): Promise<void> {
    return this.#deliveries;
  }

  /** Whether the order rests on the fake venue's book now. */
  async probeOrder(pair: PairBinding, side: 'buy' | 'sell', orderId: bigint): Promise<OrderProbe> {
    const book = this.#venue.pair(pair.pairId).book;
    return {
      onBook: (side === 'buy' ? book.buys : book.sells).some((o) => o.id === orderId),
      height: this.#venue.height,
    };
  }

  unsettled(): InFlightTx[] {
    return [...this.#unsettled.values()];
  }

  async close(): Promise<void> {
    this.#unsubscribe();
    await this.#deliveries;
  }
}
