/**
 * The chain B (Soroban) implementation of `ChainAdapter`. Each command is dispatched to the next free source
 * account (a channel account, or the trading account when there are none), in the order asked, and placements
 * of any pair are built, simulated, signed and sent side by side, one per source, so with N channels up to N
 * transactions are in flight in one ledger while the trading account authorizes every call as `user`. Only the
 * allowance steps of placements (and approvals) of one allowance run one at a time (`allowance-lanes.ts`).
 * `submit` resolves once the signed, journalled transaction has been sent; its outcome follows from
 * `getTransaction` (`submissions.ts`; a placement's way there is `placement.ts`, reads are `reads.ts`). Nothing
 * here is specific to the sandbox.
 */
import { DltError } from '../../core/errors.ts';
import type { Side } from '../../core/order-terms.ts';
import { silentLogger, type Logger } from '../../telemetry/logger.ts';
import { createMetrics } from '../../telemetry/metrics.ts';
import type {
  Allowance,
  Balances,
  BalancesAt,
  CancelCommand,
  ChainAdapter,
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
  TokenRole,
  WalletBalances,
} from '../types.ts';
import { AllowanceKeeper } from './allowances.ts';
import { AllowanceLanes } from './allowance-lanes.ts';
import { approveCall, cancelCall } from './calls.ts';
import { crossIdentifiersOnChain } from './cross-id-history.ts';
import { WasmFollower } from './follower.ts';
import { transportsOf } from './json-rpc.ts';
import { createWasmMetrics, type WasmMetrics } from './metrics.ts';
import {
  resolveOptions,
  systemClock,
  type Clock,
  type ResolvedOptions,
  type Sleep,
  type WasmAdapterOptions,
} from './options.ts';
import { settleTransaction } from './settle.ts';
import { WasmReader } from './reads.ts';
import { WalletReads } from './wallet-reads.ts';
import { WasmRpc } from './rpc-client.ts';
import { Ed25519Signer } from './signer.ts';
import { SourcePool } from './source-pool.ts';
import { notOurs, placeOrder, type PlacementDeps } from './placement.ts';
import { refused, Submissions } from './submissions.ts';

const closed = () => new DltError('E_CHAIN_RPC', 'the chain B adapter is closed', { details: { kind: 'transport' } });

export class WasmAdapter implements ChainAdapter {
  readonly chain = 'wasm' as const;
  /** Lumens' stroops. */
  readonly nativeDecimals = 7;
  readonly wallet: string;
  readonly metrics: WasmMetrics;
  readonly #options: WasmAdapterOptions;
  readonly #resolved: ResolvedOptions;
  readonly #rpc: WasmRpc;
  readonly #pool: SourcePool;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  readonly #reader: WasmReader;
  readonly #walletReads: WalletReads;
  readonly #keeper: AllowanceKeeper;
  readonly #trading: Ed25519Signer;
  readonly #closing = new AbortController();
  readonly #followers = new Set<WasmFollower>();
  readonly #submissions: Submissions;
  readonly #placement: PlacementDeps;
  readonly #prefunded = new Map<string, boolean>();
  /** Per allowance (token and order book): its approvals and placements' allowance steps, one at a time. */
  readonly #lanes = new AllowanceLanes(() => (this.#closing.signal.aborted ? closed() : null));

  constructor(options: WasmAdapterOptions) {
    this.#options = options;
    this.#resolved = resolveOptions(options);
    this.wallet = options.tradingKey.publicKey();
    this.#trading = new Ed25519Signer(options.tradingKey);
    this.metrics = createWasmMetrics(options.metrics ?? createMetrics());
    this.#logger = (options.logger ?? silentLogger()).child({ chain: 'wasm', wallet: this.wallet });
    this.#clock = options.clock ?? systemClock;
    this.#sleep = this.#clock.sleep;
    const transports = transportsOf(options, this.#resolved.rpcTimeoutMs);
    this.#rpc = new WasmRpc(transports.single, this.metrics, () => this.#clock.now());
    const channels = options.channelKeys ?? [];
    this.#pool = new SourcePool(channels.length > 0 ? channels : [options.tradingKey], this.#clock, this.#sleep);
    const gathered = this.#rpc.withTransport(transports.gathering);
    this.#submissions = new Submissions({
      rpc: this.#rpc,
      sending: this.#rpc.withTransport(transports.sending),
      polls: gathered,
      pool: this.#pool,
      journal: options.journal,
      trading: this.#trading,
      passphrase: options.networkPassphrase,
      options: this.#resolved,
      clock: this.#clock,
      metrics: this.metrics,
      logger: this.#logger,
      onTiming: options.onSubmitTiming,
      closing: this.#closing.signal,
    });
    this.#reader = new WasmReader(this.#rpc, this.wallet, options.networkPassphrase, this.#logger, gathered);
    this.#walletReads = new WalletReads(this.#rpc, this.#reader, this.wallet);
    this.#keeper = new AllowanceKeeper({
      reader: this.#reader,
      state: options.state,
      wallet: this.wallet,
      options: this.#resolved.approvals,
      logger: this.#logger,
      latestLedger: () => this.#currentLedger(),
      approve: (pair, role, amount, expiration) => this.#approve(pair, role, amount, expiration),
    });
    this.#placement = {
      wallet: this.wallet,
      submissions: this.#submissions,
      keeper: this.#keeper,
      isPrefunded: (pair) => this.#isPrefunded(pair),
      inLane: (pair, role, work) => this.#lanes.run(pair, role, work),
      closing: this.#closing.signal,
    };
  }

  /**
   * The ledger the network is at now, without a round trip when a reply named one recently: the last ledger
   * seen plus the ledgers that should have closed since (an estimate on the high side, so renewals come early).
   */
  async #currentLedger(): Promise<number> {
    const seen = this.#rpc.ledgers.last;
    if (seen.height === 0) return (await this.#rpc.latestLedger()).sequence;
    return seen.height + Math.max(0, Math.floor((this.#clock.now() - seen.atMs) / this.#resolved.ledgerCloseMs));
  }

  /** Source accounts in use: the channels, or the trading account alone. */
  get sources(): readonly string[] {
    return this.#pool.sources.map((s) => s.address);
  }

  async readPairState(pair: PairBinding): Promise<OnChainPairState> {
    const state = await this.#reader.pairState(pair);
    this.#prefunded.set(pair.orderBook, state.prefunded);
    return state;
  }

  /** Whether the book takes an order's tokens at placement (read once from its configuration). */
  async #isPrefunded(pair: PairBinding): Promise<boolean> {
    return this.#prefunded.get(pair.orderBook) ?? (await this.readPairState(pair)).prefunded;
  }

  readBalances(pair: PairBinding): Promise<Balances> {
    return this.#reader.balances(pair);
  }

  /** Base and quote as of one ledger (Soroban reads only the latest state, so `at` is not used). */
  readBalancesAt(pair: PairBinding, _at: bigint | null): Promise<BalancesAt> {
    return this.#reader.balancesAt(pair);
  }

  /** Every token's balance (its trustline) and the XLM balance in one `getLedgerEntries` (wallet-reads.ts). */
  readWalletBalances(tokens: readonly string[]): Promise<WalletBalances> {
    return this.#walletReads.balances(tokens);
  }

  async readAllowance(pair: PairBinding, token: TokenRole): Promise<Allowance> {
    const amount = await this.#reader.allowance(token === 'base' ? pair.baseToken : pair.quoteToken, pair.orderBook);
    return { amount, expiresAtLedger: this.#keeper.recordedExpiry(pair, token) };
  }

  ensureReady(pair: PairBinding): Promise<void> {
    return this.#reader.checkTrustlines(pair);
  }

  ensureAllowance(pair: PairBinding, token: TokenRole, amount: bigint): Promise<Submission | null> {
    return this.#lanes.run(pair, token, () => this.#keeper.ensure(pair, token, amount));
  }

  /** One placement per source account at a time (see `placementLanes`). */
  get placementLanes(): number {
    return this.#pool.size;
  }

  /**
   * Placements wait for a source of their own and go out side by side; only their allowance step takes the
   * lane. A cancel takes a source ahead of them (one is kept free for cancels).
   */
  submit(command: Command): Promise<Submission> {
    const startedMs = this.#clock.now();
    if (this.#closing.signal.aborted)
      return command.kind === 'cancel' ? Promise.resolve(refused(closed())) : Promise.reject(closed());
    if (command.kind === 'cancel') return this.#cancel(command, startedMs);
    return placeOrder(this.#placement, command, startedMs);
  }

  #cancel(c: CancelCommand, startedMs: number): Promise<Submission> {
    const context = { pair: c.pair.pairId, side: c.side, orderId: c.orderId.toString() };
    if (c.pair.chain !== 'wasm')
      return Promise.resolve(this.#submissions.refuse('cancel', notOurs(c.pair.pairId, context)));
    const signal = c.signal === undefined ? this.#closing.signal : AbortSignal.any([this.#closing.signal, c.signal]);
    return this.#submissions.send(
      {
        kind: 'cancel',
        call: cancelCall(c.pair.orderBook, this.wallet, c.side, c.orderId),
        clientOrderId: null,
        context,
        startedMs,
      },
      c.pair,
      c.orderId,
      signal,
    );
  }

  #approve(pair: PairBinding, role: TokenRole, amount: bigint, expirationLedger: number): Promise<Submission> {
    const token = role === 'base' ? pair.baseToken : pair.quoteToken;
    const context = { pair: pair.pairId, tokenRole: role, amount: amount.toString(), expirationLedger };
    return this.#submissions.send(
      {
        kind: 'approve',
        call: approveCall(token, this.wallet, pair.orderBook, amount, expirationLedger),
        clientOrderId: null,
        context,
        startedMs: this.#clock.now(),
      },
      pair,
      null,
    );
  }

  /** The fate of a transaction sent earlier, by this process or one before it (see `settle.ts`). */
  settle(txHash: string, pair: PairBinding): Promise<Outcome> {
    return settleTransaction(this.#submissions.outcomeContext(), {
      hash: txHash,
      pair,
      wallet: this.wallet,
      passphrase: this.#options.networkPassphrase,
    });
  }

  follow(
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (notice: FollowerNotice) => Promise<void>,
  ): Follower {
    const deps = { rpc: this.#rpc, metrics: this.metrics, logger: this.#logger, clock: this.#clock };
    const follower = new WasmFollower(
      {
        ...deps,
        sleep: this.#sleep,
        options: this.#resolved.follower,
        wallet: this.wallet,
        ledgerCloseMs: this.#resolved.ledgerCloseMs,
      },
      pairs,
      from,
      onNotice,
    );
    this.#followers.add(follower);
    return {
      poll: () => follower.poll(),
      stop: async () => {
        this.#followers.delete(follower);
        await follower.stop();
      },
    };
  }

  /** A cancellation simulated on the latest ledger: contract error #8 (order not found) says the order is gone. */
  probeOrder(pair: PairBinding, side: Side, orderId: bigint): Promise<OrderProbe> {
    return this.#reader.probeOrder(pair, side, orderId);
  }

  unsettled(): InFlightTx[] {
    return this.#submissions.unsettled();
  }

  /** The cross identifiers of the wallet's orders from the oldest retained ledger on (`cross-id-history.ts`). */
  crossIdentifiersSeen(pairs: readonly PairBinding[]): Promise<bigint[]> {
    return crossIdentifiersOnChain(this.#rpc, pairs, this.wallet, this.#resolved.follower.pageLimit);
  }

  /** Stops following and polling; outcomes still open settle as `unknown` (`settle` finds them later). */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.all([...this.#followers].map((f) => f.stop()));
    this.#followers.clear();
    await this.#submissions.settled();
  }
}
