/**
 * The chain A implementation of `ChainAdapter`, written against the specification only: order book calls from
 * the spec's function table, events with their indexed flags, the venue's error names. One instance per trading
 * wallet. Commands go through one serial sending lane (nonces in arrival order, many in flight at once), an
 * approve goes ahead of the placement that needs it in the same lane, receipts and replacements are followed by
 * the watcher, and events by followers.
 */
import { getAddress } from 'ethers';
import { DltError } from '../../core/errors.ts';
import type { ApprovalStore, CursorStore, NonceJournal } from '../ports.ts';
import { createLogger, type Logger } from '../../telemetry/logger.ts';
import type {
  ChainAdapter,
  Allowance,
  Balances,
  BalancesAt,
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
import { HeadSightings } from '../head-sightings.ts';
import { BlockCache } from './block-cache.ts';
import { crossIdentifiersOnChain } from './cross-id-history.ts';
import { EvmFollower, storedCursor } from './follower.ts';
import { decodeContextOf } from './log-decoder.ts';
import { FeeOracle } from './fee-oracle.ts';
import { GasLimits } from './gas-limits.ts';
import { transportsOf } from './json-rpc.ts';
import { createEvmMetrics, type EvmMetrics } from './metrics.ts';
import { NonceSequencer } from './nonce-sequencer.ts';
import { resolveOptions, systemClock, type Clock, type EvmAdapterOptions } from './options.ts';
import type { ResolvedOptions, Sleep } from './options.ts';
import type { ClientInfo } from './pair-reads.ts';
import { EvmReader } from './reads.ts';
import { OrderFlow } from './order-flow.ts';
import { minedCommandOf, outcomeOfReceipt, type MinedCommand } from './receipt-outcome.ts';
import { EvmRpc, type Receipt } from './rpc-client.ts';
import { settleTransaction } from './settle.ts';
import { refusedSubmission, TxSender } from './tx-sender.ts';
import type { Side } from '../../core/order-terms.ts';
import { TxSigner } from './tx-signer.ts';
import { TxWatcher } from './tx-watcher.ts';

const closed = (kind: string) => new DltError('E_CHAIN_RPC', 'the chain A adapter is closed', { details: { kind } });
export class EvmAdapter implements ChainAdapter {
  readonly chain = 'evm' as const;
  readonly nativeDecimals = 18; // ether's wei
  readonly wallet: string;
  readonly options: ResolvedOptions;
  readonly #expectedChainId: bigint;
  readonly #logger: Logger;
  readonly #metrics: EvmMetrics | null;
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  readonly #journal: NonceJournal;
  readonly #state: (CursorStore & ApprovalStore) | null;
  readonly #rpc: EvmRpc;
  readonly #gathered: EvmRpc; // calls made in the same turn leave as one batch (a range's logs and headers)
  readonly #blocks: BlockCache;
  readonly #heads = new HeadSightings(); // the watcher's polls see them, the followers wait on them
  readonly #reader: EvmReader;
  readonly #watcher: TxWatcher;
  readonly #sequencer: NonceSequencer;
  readonly #flow: OrderFlow;
  readonly #pairs = new Map<string, PairBinding>();
  readonly #followers = new Set<EvmFollower>();
  #init: Promise<void> | null = null;
  #closed = false;

  constructor(options: EvmAdapterOptions) {
    this.options = resolveOptions(options);
    const signer = new TxSigner(options.privateKey, options.chainId);
    this.wallet = getAddress(signer.address);
    this.#expectedChainId = options.chainId;
    this.#logger = (options.logger ?? createLogger({ level: 'silent' })).child({ chain: 'evm', wallet: this.wallet });
    this.#metrics = options.metrics === undefined ? null : createEvmMetrics(options.metrics);
    this.#clock = options.clock ?? systemClock;
    this.#sleep = this.#clock.sleep;
    this.#journal = options.journal;
    this.#state = options.state ?? null;
    const transports = transportsOf(options, this.options.rpcTimeoutMs);
    this.#rpc = new EvmRpc(transports.single, this.#metrics, this.#logger);
    const gathered = (this.#gathered = this.#rpc.withTransport(transports.gathering));
    const sending = this.#rpc.withTransport(transports.sending); // with the watcher's poll, simulations, reads
    this.#blocks = new BlockCache(gathered);
    this.#reader = new EvmReader(this.#rpc, this.wallet, this.#logger, sending);
    const fees = new FeeOracle(gathered, this.options.fees, this.#clock, this.#logger);
    this.#sequencer = new NonceSequencer(this.#rpc, this.wallet, this.#metrics, this.#logger);
    const common = {
      rpc: this.#rpc,
      signer,
      fees,
      journal: this.#journal,
      metrics: this.#metrics,
      logger: this.#logger,
      clock: this.#clock,
    };
    this.#watcher = new TxWatcher({
      ...common,
      rpc: sending,
      heads: this.#heads,
      sleep: this.#sleep,
      options: this.options.receipts,
      outcomeOf: (receipt, slot, mined) => this.#outcomeOf(receipt, minedCommandOf(slot, mined)),
    });
    const sender = new TxSender({
      ...common,
      rpc: sending,
      sequencer: this.#sequencer,
      watcher: this.#watcher,
      maxResyncs: this.options.maxNonceResyncs,
      onTiming: options.onSubmitTiming,
    });
    this.#flow = new OrderFlow({
      ...common,
      rpc: sending,
      sender,
      watcher: this.#watcher,
      gas: new GasLimits(this.#rpc, this.options.gasLimits, this.options.gasEstimateHeadroomPercent, this.#logger),
      options: this.options,
      wallet: this.wallet,
      state: this.#state,
      ready: () => this.#ready(),
    });
  }

  /** Checks the chain id and takes back the journal's unsettled nonces, once, before the first transaction. */
  #ready(): Promise<void> {
    this.#init ??= (async () => {
      await this.#reader.checkChainId(this.#expectedChainId);
      const open = this.#journal.open('evm', this.wallet);
      this.#watcher.restore(open);
      await this.#sequencer.init(open.map((r) => r.sequence));
      if (open.length > 0)
        this.#logger.warn(
          { unsettled: open.map((r) => r.txHash) },
          'chain A transactions of an earlier run are unsettled; following them',
        );
      this.#watcher.start();
    })();
    this.#init.catch(() => {
      this.#init = null;
    });
    return this.#init;
  }

  #register(pair: PairBinding): void {
    this.#pairs.set(pair.pairId, pair);
  }

  #outcomeOf(receipt: Receipt, command: MinedCommand): Promise<Outcome> {
    const ctx = decodeContextOf([...this.#pairs.values()], this.wallet);
    // The outcome stands once its block is confirmed: the followers report when it is, events or not.
    for (const f of this.#followers) f.confirmAt(receipt.blockNumber);
    return outcomeOfReceipt(receipt, command, ctx, {
      rpc: this.#rpc,
      blocks: this.#blocks,
      metrics: this.#metrics,
      logger: this.#logger,
      wallet: this.wallet.toLowerCase(),
    });
  }

  readPairState(pair: PairBinding): Promise<OnChainPairState> {
    this.#register(pair);
    return this.#reader.pairState(pair);
  }

  readBalances(pair: PairBinding): Promise<Balances> {
    return this.#reader.balances(pair);
  }

  readBalancesAt(pair: PairBinding, at: bigint | null): Promise<BalancesAt> {
    return this.#reader.balancesAt(pair, at);
  }

  /** Every token's `balanceOf` and the native balance in one JSON-RPC batch. */
  readWalletBalances(tokens: readonly string[]): Promise<WalletBalances> {
    return this.#reader.walletBalances(tokens);
  }

  readAllowance(pair: PairBinding, token: TokenRole): Promise<Allowance> {
    return this.#reader.allowance(pair, token);
  }

  /** The whitelist's record of the wallet, when the order book names a whitelist that answers `readClientInfo`. */
  readClientInfo(pair: PairBinding): Promise<ClientInfo | null> {
    return this.#reader.clientInfo(pair);
  }

  ensureReady(pair: PairBinding): Promise<void> {
    this.#register(pair);
    return this.#reader.ensureReady(pair);
  }

  ensureAllowance(pair: PairBinding, token: TokenRole, amount: bigint): Promise<Submission | null> {
    this.#register(pair);
    return this.#flow.ensureAllowance(pair, token, amount, performance.now());
  }

  submit(command: Command): Promise<Submission> {
    const startedAt = performance.now();
    if (this.#closed) return Promise.resolve(refusedSubmission(closed(command.kind)));
    this.#register(command.pair);
    return command.kind === 'place' ? this.#flow.place(command, startedAt) : this.#flow.cancel(command, startedAt);
  }

  async settle(txHash: string, pair: PairBinding): Promise<Outcome> {
    this.#register(pair);
    await this.#ready();
    return settleTransaction(txHash, {
      rpc: this.#rpc,
      journal: this.#journal,
      watcher: this.#watcher,
      wallet: this.wallet,
      outcomeOf: (receipt, command) => this.#outcomeOf(receipt, command),
      deadlineMs: this.#clock.now() + this.options.receipts.outcomeTimeoutMs,
    });
  }

  follow(
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (notice: FollowerNotice) => Promise<void>,
  ): Follower {
    for (const p of pairs) this.#register(p);
    const follower = new EvmFollower(
      {
        rpc: this.#gathered,
        blocks: this.#blocks,
        heads: this.#heads,
        clock: this.#clock,
        sleep: this.#sleep,
        options: this.options.follower,
        metrics: this.#metrics,
        logger: this.#logger,
        wallet: this.wallet,
        state: this.#state,
      },
      pairs,
      from,
      onNotice,
    ).start();
    this.#followers.add(follower);
    return {
      poll: () => follower.poll(),
      stop: async () => {
        this.#followers.delete(follower);
        await follower.stop();
      },
    };
  }

  /** The confirmed cursor the followers persisted, for a restart (null without a state store or cursor). */
  storedCursor(): EventCursor | null {
    return this.#state === null ? null : storedCursor(this.#state, this.wallet);
  }

  /** Nonces in flight (sent, not settled). */
  get inFlight(): number {
    return this.#watcher.size;
  }

  /** A cancellation simulated at the latest block: a revert `OrderBook_OrderNotFound` says the order is gone. */
  probeOrder(pair: PairBinding, side: Side, orderId: bigint): Promise<OrderProbe> {
    this.#register(pair);
    return this.#reader.probeOrder(pair, side, orderId);
  }

  unsettled(): InFlightTx[] {
    return this.#watcher.inFlightNonces().flatMap((n) => {
      const slot = this.#watcher.slotAt(n);
      if (slot === undefined) return [];
      const context = { ...slot.command.context, nonce: n.toString() };
      return [{ txHash: slot.latest.signed.hash, kind: slot.command.kind, context }];
    });
  }

  /** The cross identifiers of the wallet's orders from the chain's first block on (`cross-id-history.ts`). */
  crossIdentifiersSeen(pairs: readonly PairBinding[]): Promise<bigint[]> {
    return crossIdentifiersOnChain(this.#rpc, pairs, this.wallet, this.options.follower);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#followers].map((f) => f.stop()));
    this.#followers.clear();
    await this.#flow.drain();
    await this.#watcher.close('the chain A adapter closed before the chain settled it');
  }
}
