/**
 * The chain A implementation of `ChainAdapter`, written against the specification only: order book calls from
 * the spec's function table, events with their indexed flags, the venue's error names. One instance per trading
 * wallet. Commands go through one serial sending lane (nonces in arrival order, many in flight at once), an
 * approve goes ahead of the placement that needs it in the same lane, receipts and replacements are followed by
 * the watcher, and events by followers.
 */
import { getAddress } from 'ethers';
import { isPhaseOpen } from '../../core/calendar.ts';
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
} from '../types.ts';
import { BlockCache } from './block-cache.ts';
import { crossIdentifiersOnChain } from './cross-id-history.ts';
import { decodeContextOf, EvmFollower, storedCursor } from './follower.ts';
import { FeeOracle } from './fee-oracle.ts';
import { GasLimits } from './gas-limits.ts';
import { httpTransport, rpcFailure, rpcFailureOf } from './json-rpc.ts';
import { createEvmMetrics, type EvmMetrics } from './metrics.ts';
import { NonceSequencer } from './nonce-sequencer.ts';
import {
  resolveOptions,
  systemClock,
  type Clock,
  type EvmAdapterOptions,
  type ResolvedOptions,
  type Sleep,
} from './options.ts';
import {
  checkTokens,
  readClientInfo,
  readConfig,
  readPhase,
  readTokenAllowance,
  readTokenBalance,
  type ClientInfo,
  type OrderBookConfig,
} from './pair-reads.ts';
import { OrderFlow } from './order-flow.ts';
import { outcomeOfReceipt, type MinedCommand } from './receipt-outcome.ts';
import { EvmRpc, type Receipt } from './rpc-client.ts';
import { settleTransaction } from './settle.ts';
import { refusedSubmission, TxSender } from './tx-sender.ts';
import { cancelCalldata } from './commands.ts';
import { revertError } from './revert-decoder.ts';
import type { Side } from '../../core/order-terms.ts';
import { TxSigner } from './tx-signer.ts';
import { TxWatcher } from './tx-watcher.ts';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export class EvmAdapter implements ChainAdapter {
  readonly chain = 'evm' as const;
  /** Ether's wei. */
  readonly nativeDecimals = 18;
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
  readonly #blocks: BlockCache;
  readonly #watcher: TxWatcher;
  readonly #sequencer: NonceSequencer;
  readonly #flow: OrderFlow;
  readonly #pairs = new Map<string, PairBinding>();
  readonly #configs = new Map<string, OrderBookConfig>();
  readonly #followers = new Set<EvmFollower>();
  #init: Promise<void> | null = null;
  #closed = false;

  constructor(o: EvmAdapterOptions) {
    this.options = resolveOptions(o);
    const signer = new TxSigner(o.privateKey, o.chainId);
    this.wallet = getAddress(signer.address);
    this.#expectedChainId = o.chainId;
    this.#logger = (o.logger ?? createLogger({ level: 'silent' })).child({ chain: 'evm', wallet: this.wallet });
    this.#metrics = o.metrics === undefined ? null : createEvmMetrics(o.metrics);
    this.#clock = o.clock ?? systemClock;
    this.#sleep = this.#clock.sleep;
    this.#journal = o.journal;
    this.#state = o.state ?? null;
    this.#rpc = new EvmRpc(
      o.transport ?? httpTransport(o.rpcUrl, { timeoutMs: this.options.rpcTimeoutMs }),
      this.#metrics,
      this.#logger,
    );
    this.#blocks = new BlockCache(this.#rpc);
    const fees = new FeeOracle(this.#rpc, this.options.fees, this.#clock, this.#logger);
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
      sleep: this.#sleep,
      options: this.options.receipts,
      outcomeOf: (receipt, slot, mined) =>
        this.#outcomeOf(receipt, {
          kind: slot.command.kind,
          nonce: slot.nonce,
          payload: (slot.attempts[0] ?? mined).signed.payload,
          cancelledBySelfTransfer: mined.role === 'cancel',
          context: slot.command.context,
        }),
    });
    const sender = new TxSender({
      ...common,
      sequencer: this.#sequencer,
      watcher: this.#watcher,
      maxResyncs: this.options.maxNonceResyncs,
      onTiming: o.onSubmitTiming,
    });
    this.#flow = new OrderFlow({
      ...common,
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
      const chainId = await this.#rpc.chainId();
      if (chainId !== this.#expectedChainId) {
        throw new DltError(
          'E_CONFIG_INVALID',
          `the chain A node reports chain id ${chainId}, the wallet signs for ${this.#expectedChainId}`,
          {
            details: { expected: this.#expectedChainId.toString(), actual: chainId.toString() },
          },
        );
      }
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

  async #config(pair: PairBinding): Promise<OrderBookConfig> {
    const cached = this.#configs.get(pair.orderBook.toLowerCase());
    if (cached !== undefined) return cached;
    const config = await readConfig(this.#rpc, this.wallet, pair.orderBook);
    checkTokens(config, pair);
    this.#configs.set(pair.orderBook.toLowerCase(), config);
    return config;
  }

  async readPairState(pair: PairBinding): Promise<OnChainPairState> {
    this.#register(pair);
    this.#configs.delete(pair.orderBook.toLowerCase());
    const [config, phase] = await Promise.all([this.#config(pair), readPhase(this.#rpc, this.wallet, pair.orderBook)]);
    // Contract v1 on chain A locks at placement; there is no no-prefund entry in its configuration.
    return {
      phase,
      open: isPhaseOpen('evm', phase),
      scales: config.scales,
      makerBps: config.makerBps,
      takerBps: config.takerBps,
      marketMakerBps: config.marketMakerBps,
      prefunded: true,
    };
  }

  async readBalances(pair: PairBinding): Promise<Balances> {
    const [base, quote, native] = await Promise.all([
      readTokenBalance(this.#rpc, this.wallet, pair.baseToken, this.wallet),
      readTokenBalance(this.#rpc, this.wallet, pair.quoteToken, this.wallet),
      this.#rpc.balance(this.wallet),
    ]);
    return { base, quote, native };
  }

  /** Base, quote and native balances at one block: `at`, or the latest. */
  async readBalancesAt(pair: PairBinding, at: bigint | null): Promise<BalancesAt> {
    let height = at;
    if (height === null) {
      const head = await this.#rpc.block('latest');
      if (head === null) throw rpcFailure('eth_getBlockByNumber', 'malformed', 'the node has no latest block');
      height = head.number;
    }
    const [base, quote, native] = await Promise.all([
      readTokenBalance(this.#rpc, this.wallet, pair.baseToken, this.wallet, height),
      readTokenBalance(this.#rpc, this.wallet, pair.quoteToken, this.wallet, height),
      this.#rpc.balance(this.wallet, height),
    ]);
    return { base, quote, native, height };
  }

  async readAllowance(pair: PairBinding, token: TokenRole): Promise<Allowance> {
    const amount = await readTokenAllowance(
      this.#rpc,
      this.wallet,
      token === 'base' ? pair.baseToken : pair.quoteToken,
      this.wallet,
      pair.orderBook,
    );
    return { amount, expiresAtLedger: null };
  }

  /** The whitelist's record of the wallet, when the order book names a whitelist that answers `readClientInfo`. */
  async readClientInfo(pair: PairBinding): Promise<ClientInfo | null> {
    const config = await this.#config(pair);
    if (config.whitelist.toLowerCase() === ZERO_ADDRESS) return null;
    return readClientInfo(this.#rpc, this.wallet, config.whitelist, this.wallet);
  }

  async ensureReady(pair: PairBinding): Promise<void> {
    this.#register(pair);
    const config = await this.#config(pair);
    if (config.whitelist.toLowerCase() === ZERO_ADDRESS) {
      this.#logger.warn({ pairId: pair.pairId }, 'the order book names no whitelist; registry check skipped');
      return;
    }
    let info: ClientInfo;
    try {
      info = await readClientInfo(this.#rpc, this.wallet, config.whitelist, this.wallet);
    } catch (e) {
      // A whitelist of another interface than the sandbox's (readClientInfo is not in the specification) is
      // not a reason to refuse trading; a node that does not answer is.
      if (rpcFailureOf(e)?.kind === 'transport') throw e;
      this.#logger.warn(
        { pairId: pair.pairId, whitelist: config.whitelist, err: e },
        'the whitelist does not answer readClientInfo; registry check skipped',
      );
      return;
    }
    const missing: DltError[] = [];
    const details = { pairId: pair.pairId, wallet: this.wallet, clientInfo: { ...info, id: info.id.toString() } };
    const none = info.id === 0n && !info.canBuy && !info.canSell && !info.canCancel;
    if (none)
      missing.push(
        new DltError('E_VENUE_CLIENT_NOT_FOUND', `wallet ${this.wallet} is not in the venue's whitelist`, { details }),
      );
    else {
      if (!info.canBuy)
        missing.push(
          new DltError('E_VENUE_NOT_ALLOWED_TO_BUY', `wallet ${this.wallet} may not buy on ${pair.symbol}`, {
            details,
          }),
        );
      if (!info.canSell)
        missing.push(
          new DltError('E_VENUE_NOT_ALLOWED_TO_SELL', `wallet ${this.wallet} may not sell on ${pair.symbol}`, {
            details,
          }),
        );
      if (!info.canCancel)
        missing.push(
          new DltError('E_VENUE_NOT_ALLOWED_TO_CANCEL', `wallet ${this.wallet} may not cancel on ${pair.symbol}`, {
            details,
          }),
        );
    }
    const first = missing[0];
    if (first !== undefined)
      throw new DltError(first.code, missing.map((m) => m.message).join('; '), {
        details: { ...details, missing: missing.map((m) => m.code) },
      });
    const native = await this.#rpc.balance(this.wallet);
    if (native === 0n) this.#logger.warn({ pairId: pair.pairId }, 'the wallet holds no native token to pay fees');
  }

  ensureAllowance(pair: PairBinding, token: TokenRole, amount: bigint): Promise<Submission | null> {
    this.#register(pair);
    return this.#flow.ensureAllowance(pair, token, amount, performance.now());
  }

  submit(command: Command): Promise<Submission> {
    const startedAt = performance.now();
    if (this.#closed)
      return Promise.resolve(
        refusedSubmission(
          new DltError('E_CHAIN_RPC', 'the chain A adapter is closed', { details: { kind: command.kind } }),
        ),
      );
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
        rpc: this.#rpc,
        blocks: this.#blocks,
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
  async probeOrder(pair: PairBinding, side: Side, orderId: bigint): Promise<OrderProbe> {
    this.#register(pair);
    const head = await this.#rpc.block('latest');
    if (head === null) throw rpcFailure('eth_getBlockByNumber', 'malformed', 'the node has no latest block');
    const call = {
      from: this.wallet,
      to: pair.orderBook,
      data: cancelCalldata({ kind: 'cancel', pair, side, orderId }),
    };
    try {
      await this.#rpc.call(call, head.number);
      return { onBook: true, height: head.number };
    } catch (e) {
      const f = rpcFailureOf(e);
      if (f === null || f.kind !== 'rpc' || f.data === null)
        return { onBook: null, height: head.number, reason: e instanceof Error ? e.message : String(e) };
      const error = revertError(f.data, { pair: pair.pairId, orderId: orderId.toString(), probe: true });
      return error.code === 'E_VENUE_ORDER_NOT_FOUND'
        ? { onBook: false, height: head.number }
        : { onBook: null, height: head.number, reason: `${error.code}: ${error.message}` };
    }
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
