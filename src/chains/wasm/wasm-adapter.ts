/**
 * The chain B (Soroban) implementation of `ChainAdapter`. Commands are taken one at a time, in order, and
 * each is dispatched to the next free source account (a channel account, or the trading account when there
 * are none), so with N channels up to N transactions are in flight in one ledger while the trading account
 * authorizes every call as `user`. `submit` resolves once the signed, journalled transaction has been sent;
 * its outcome follows from `getTransaction`. Nothing here is specific to the sandbox.
 */
import { asDltError, DltError, isDltError } from '../../core/errors.ts';
import { formatDecimal } from '../../core/decimal.ts';
import { encodeOrder } from '../../core/encoding/order-codec.ts';
import type { Side } from '../../core/order-terms.ts';
import { CHAIN_NODE, incidentsOf, isTransportFailure } from '../../telemetry/incidents.ts';
import { silentLogger, type Logger } from '../../telemetry/logger.ts';
import { errorFields, isVenueRace } from '../venue-race.ts';
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
  PlaceCommand,
  Submission,
  TokenRole,
} from '../types.ts';
import { AllowanceKeeper } from './allowances.ts';
import { approveCall, cancelCall, placeCall } from './calls.ts';
import { EventBindings } from './event-decoder.ts';
import { crossIdentifiersOnChain } from './cross-id-history.ts';
import { WasmFollower } from './follower.ts';
import { httpTransport } from './json-rpc.ts';
import { createWasmMetrics, type WasmMetrics } from './metrics.ts';
import {
  resolveOptions,
  systemClock,
  type Clock,
  type ResolvedOptions,
  type Sleep,
  type WasmAdapterOptions,
} from './options.ts';
import { awaitOutcome, type OutcomeContext, type TrackedTx } from './outcome.ts';
import { settleTransaction } from './settle.ts';
import { WasmReader } from './reads.ts';
import { WasmRpc } from './rpc-client.ts';
import { sendInvocation, type SenderDeps, type TxIntent } from './sender.ts';
import { Ed25519Signer } from './signer.ts';
import { SourcePool } from './source-pool.ts';

const closed = () => new DltError('E_CHAIN_RPC', 'the chain B adapter is closed', { details: { kind: 'transport' } });
const notOurs = (pairId: string, details: Record<string, unknown>) =>
  new DltError('E_PAIR_INVALID', `pair ${pairId} is not a chain B pair`, { details });

function refused(error: DltError, txHash: string | null = null): Submission {
  return { txHash, outcome: Promise.resolve({ kind: 'rejected', txHash, error, included: false }) };
}

export class WasmAdapter implements ChainAdapter {
  readonly chain = 'wasm' as const;
  /** Lumens' stroops. */
  readonly nativeDecimals = 7;
  readonly wallet: string;
  readonly metrics: WasmMetrics;
  readonly #o: WasmAdapterOptions;
  readonly #r: ResolvedOptions;
  readonly #rpc: WasmRpc;
  readonly #pool: SourcePool;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  readonly #reader: WasmReader;
  readonly #keeper: AllowanceKeeper;
  readonly #trading: Ed25519Signer;
  readonly #closing = new AbortController();
  readonly #followers = new Set<WasmFollower>();
  readonly #pending = new Map<Promise<Outcome>, InFlightTx>();
  readonly #prefunded = new Map<string, boolean>();
  #lane: Promise<unknown> = Promise.resolve();

  constructor(o: WasmAdapterOptions) {
    this.#o = o;
    this.#r = resolveOptions(o);
    this.wallet = o.tradingKey.publicKey();
    this.#trading = new Ed25519Signer(o.tradingKey);
    this.metrics = createWasmMetrics(o.metrics ?? createMetrics());
    this.#logger = (o.logger ?? silentLogger()).child({ chain: 'wasm', wallet: this.wallet });
    this.#clock = o.clock ?? systemClock;
    this.#sleep = this.#clock.sleep;
    this.#rpc = new WasmRpc(
      o.transport ?? httpTransport(o.rpcUrl, { timeoutMs: this.#r.rpcTimeoutMs }),
      this.metrics,
      () => this.#clock.now(),
    );
    const channels = o.channelKeys ?? [];
    this.#pool = new SourcePool(channels.length > 0 ? channels : [o.tradingKey], this.#clock, this.#sleep);
    this.#reader = new WasmReader(this.#rpc, this.wallet, o.networkPassphrase, this.#logger);
    this.#keeper = new AllowanceKeeper({
      reader: this.#reader,
      state: o.state,
      wallet: this.wallet,
      options: this.#r.approvals,
      logger: this.#logger,
      latestLedger: () => this.#currentLedger(),
      approve: (pair, role, amount, expiration) => this.#approve(pair, role, amount, expiration),
    });
  }

  /**
   * The ledger the network is at now, without a round trip when a reply named one recently: the last ledger
   * seen plus the ledgers that should have closed since (an estimate on the high side, so renewals come early).
   */
  async #currentLedger(): Promise<number> {
    const seen = this.#rpc.lastSeen;
    if (seen.ledger === 0) return (await this.#rpc.latestLedger()).sequence;
    return seen.ledger + Math.max(0, Math.floor((this.#clock.now() - seen.atMs) / this.#r.ledgerCloseMs));
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

  async readBalances(pair: PairBinding): Promise<Balances> {
    const [base, quote, native] = await Promise.all([
      this.#reader.tokenBalance(pair.baseToken),
      this.#reader.tokenBalance(pair.quoteToken),
      this.#reader.native(),
    ]);
    return { base, quote, native };
  }

  /**
   * Base and quote as of one ledger (Soroban reads only the latest state, so `at` is not used): both are read
   * again while a ledger closes between them. The native balance is read beside them.
   */
  async readBalancesAt(pair: PairBinding, _at: bigint | null): Promise<BalancesAt> {
    for (let attempt = 0; ; attempt++) {
      const [base, quote, native] = await Promise.all([
        this.#reader.tokenBalanceAt(pair.baseToken),
        this.#reader.tokenBalanceAt(pair.quoteToken),
        this.#reader.native(),
      ]);
      if (base.ledger === quote.ledger)
        return { base: base.amount, quote: quote.amount, native, height: BigInt(base.ledger) };
      if (attempt >= 2) {
        throw new DltError(
          'E_CHAIN_RPC',
          `balances of ${pair.pairId} were read on different ledgers (${base.ledger}, ${quote.ledger}) three times`,
          { details: { kind: 'transport', pair: pair.pairId } },
        );
      }
    }
  }

  async readAllowance(pair: PairBinding, token: TokenRole): Promise<Allowance> {
    const amount = await this.#reader.allowance(token === 'base' ? pair.baseToken : pair.quoteToken, pair.orderBook);
    return { amount, expiresAtLedger: this.#keeper.recordedExpiry(pair, token) };
  }

  ensureReady(pair: PairBinding): Promise<void> {
    return this.#reader.checkTrustlines(pair);
  }

  ensureAllowance(pair: PairBinding, token: TokenRole, amount: bigint): Promise<Submission | null> {
    return this.#inLane(() => this.#keeper.ensure(pair, token, amount));
  }

  /**
   * Placements (and approvals) go through the lane one after another, in the order they were given; a cancel
   * does not wait for them: it takes a source of its own (one is kept free for cancels) at once.
   */
  submit(command: Command): Promise<Submission> {
    const startedMs = this.#clock.now();
    if (command.kind === 'cancel') {
      if (this.#closing.signal.aborted) return Promise.resolve(refused(closed()));
      return this.#cancel(command, startedMs);
    }
    return this.#inLane(() => this.#place(command, startedMs));
  }

  /** Placements and approvals run one after another, in the order they were given. */
  #inLane<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lane.then(() => {
      if (this.#closing.signal.aborted) throw closed();
      return work();
    });
    this.#lane = run.catch(() => undefined);
    return run;
  }

  async #place(c: PlaceCommand, startedMs: number): Promise<Submission> {
    const context = {
      pair: c.pair.pairId,
      side: c.terms.side,
      price: formatDecimal(c.terms.price),
      quantity: formatDecimal(c.terms.quantity),
      clientOrderId: c.clientOrderId.toString(),
    };
    if (c.pair.chain !== 'wasm') return this.#refuse('place', notOurs(c.pair.pairId, context));
    let call;
    try {
      call = placeCall(
        c.pair.orderBook,
        this.wallet,
        encodeOrder('wasm', c.terms, c.pair.rules.scales, c.clientOrderId, c.reporting),
      );
    } catch (e) {
      if (!isDltError(e)) throw e;
      return this.#refuse('place', e, context);
    }
    const intent: TxIntent = { kind: 'place', call, clientOrderId: c.clientOrderId, context, startedMs };
    const signal = c.signal === undefined ? this.#closing.signal : AbortSignal.any([this.#closing.signal, c.signal]);
    for (let attempt = 0; ; attempt++) {
      if (c.signal?.aborted === true) return this.#withdrawn(context, c.signal.reason);
      let blocked: DltError | null;
      let prefunded = true;
      try {
        prefunded = await this.#isPrefunded(c.pair);
        blocked = await this.#keeper.prepare(c.pair, c.approval, prefunded, c.committed ?? 0n);
      } catch (e) {
        if (!isDltError(e)) throw e;
        blocked = e;
      }
      if (blocked !== null) return this.#refuse('place', blocked, context);
      const submission = await this.#send(intent, c.pair, null, signal);
      if (submission.txHash === null && attempt === 0) {
        // Refused by simulation: if for the allowance, the figure was wrong; read it again and retry once.
        const early = await submission.outcome;
        if (early.kind === 'rejected' && early.error.code === 'E_VENUE_INSUFFICIENT_ALLOWANCE') {
          this.#keeper.invalidate(c.pair, c.approval.token);
          continue;
        }
      }
      if (submission.txHash !== null) {
        // Taken when it applies: reserved until its outcome settles, so the orders of one ledger are covered together.
        const reservation = this.#keeper.reserve(c.pair, c.approval.token, c.approval.amount, prefunded);
        if (reservation !== null) void submission.outcome.then((o) => this.#keeper.settle(reservation, o));
      }
      return submission;
    }
  }

  #cancel(c: CancelCommand, startedMs: number): Promise<Submission> {
    const context = { pair: c.pair.pairId, side: c.side, orderId: c.orderId.toString() };
    if (c.pair.chain !== 'wasm') return Promise.resolve(this.#refuse('cancel', notOurs(c.pair.pairId, context)));
    const signal = c.signal === undefined ? this.#closing.signal : AbortSignal.any([this.#closing.signal, c.signal]);
    return this.#send(
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
    return this.#send(
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

  #withdrawn(context: Record<string, unknown>, reason: unknown): Submission {
    const error = asDltError(reason, 'E_ORDER_WITHDRAWN', 'placement withdrawn before it was signed');
    this.metrics.submissions.inc({ kind: 'place', outcome: 'withdrawn' });
    this.#logger.info({ ...context, ...errorFields(error) }, 'placement withdrawn before signing');
    return refused(error);
  }

  /** A command that did not apply: a failing node is its incident, any other refusal a warning. */
  #refuse(kind: string, error: DltError, context: Record<string, unknown> = {}, txHash: string | null = null) {
    this.metrics.submissions.inc({ kind, outcome: 'refused' });
    const fields = { ...context, kind, txHash, ...errorFields(error) };
    if (isTransportFailure(error.code))
      incidentsOf(this.#logger).failed(CHAIN_NODE.wasm, this.#clock.now(), `${kind} not sent`, error, fields);
    else this.#logger.warn(fields, txHash === null ? 'command refused before signing' : 'command refused');
    return refused(error, txHash);
  }

  #senderDeps(): SenderDeps {
    return {
      rpc: this.#rpc,
      pool: this.#pool,
      journal: this.#o.journal,
      trading: this.#trading,
      passphrase: this.#o.networkPassphrase,
      options: this.#r,
      clock: this.#clock,
      sleep: this.#sleep,
      metrics: this.metrics,
      logger: this.#logger,
      onTiming: this.#o.onSubmitTiming,
    };
  }

  #outcomeContext(): OutcomeContext {
    return {
      rpc: this.#rpc,
      journal: this.#o.journal,
      metrics: this.metrics,
      logger: this.#logger,
      clock: this.#clock,
      sleep: this.#sleep,
      pollIntervalMs: this.#r.pollIntervalMs,
      graceMs: this.#r.outcomeGraceMs,
      signal: this.#closing.signal,
    };
  }

  async #send(
    intent: TxIntent,
    pair: PairBinding,
    orderId: bigint | null,
    signal: AbortSignal = this.#closing.signal,
  ): Promise<Submission> {
    const res = await sendInvocation(this.#senderDeps(), intent, signal);
    if (res.kind === 'refused' && res.error.code === 'E_ORDER_WITHDRAWN')
      return this.#withdrawn(intent.context, res.error);
    if (res.kind === 'refused' && intent.kind === 'cancel' && res.error.code === 'E_ORDER_STATE' && signal.aborted) {
      // The engine saw the order leave the book while the cancel waited: never simulated nor signed.
      this.#logger.debug(
        { ...intent.context, ...errorFields(res.error) },
        'cancel not sent: the order already left the book',
      );
      return refused(res.error);
    }
    if (res.kind === 'refused' && !isVenueRace(intent.kind, res.error))
      return this.#refuse(intent.kind, res.error, intent.context, res.txHash);
    if (res.kind === 'refused') {
      this.metrics.submissions.inc({ kind: intent.kind, outcome: 'refused' });
      const fields = { ...intent.context, kind: intent.kind, txHash: res.txHash, ...errorFields(res.error) };
      this.#logger.info(fields, 'cancel not sent: the order is no longer on the book');
      return refused(res.error, res.txHash);
    }
    const { signed, source } = res;
    const tracked: TrackedTx = {
      hash: signed.hash,
      envelope: signed.envelope,
      maxTime: signed.maxTime,
      pair,
      bindings: new EventBindings(this.wallet, [pair]),
      kind: intent.kind,
      orderId,
      context: intent.context,
    };
    const outcome = awaitOutcome(this.#outcomeContext(), tracked, res.acknowledged)
      .catch((e: unknown): Outcome => ({
        kind: 'unknown',
        txHash: signed.hash,
        reason: e instanceof Error ? e.message : String(e),
      }))
      .then((o) => {
        if (o.kind === 'unknown')
          this.#pool.release(source, {
            kind: 'unknown',
            restUntilMs: Number(signed.maxTime) * 1000 + this.#r.outcomeGraceMs,
          });
        else if (o.kind === 'accepted' || o.included)
          this.#pool.release(source, { kind: 'included', sequence: signed.sequence });
        else {
          this.metrics.sequenceResyncs.inc({ reason: 'not_applied' });
          this.#pool.release(source, { kind: 'notApplied' });
        }
        this.#logOutcome(intent, o);
        return o;
      });
    this.#pending.set(outcome, { txHash: signed.hash, kind: intent.kind, context: intent.context });
    void outcome.finally(() => this.#pending.delete(outcome));
    return { txHash: signed.hash, outcome };
  }

  #logOutcome(intent: TxIntent, o: Outcome): void {
    this.metrics.submissions.inc({ kind: intent.kind, outcome: o.kind });
    const base = { ...intent.context, kind: intent.kind, txHash: o.txHash, outcome: o.kind };
    if (o.kind === 'accepted')
      this.#logger.info(
        { ...base, orderId: o.orderId?.toString() ?? null, ledger: o.height.toString(), events: o.events.length },
        'transaction included',
      );
    else if (o.kind === 'rejected' && isVenueRace(intent.kind, o.error))
      this.#logger.info(
        { ...base, included: o.included, ...errorFields(o.error) },
        'cancel met an order already gone (a fill or cancellation in the same ledger)',
      );
    else if (o.kind === 'rejected')
      this.#logger.warn({ ...base, included: o.included, ...errorFields(o.error) }, 'transaction rejected');
    else this.#logger.warn({ ...base, reason: o.reason }, 'transaction outcome unknown');
  }

  /** The fate of a transaction sent earlier, by this process or one before it (see `settle.ts`). */
  settle(txHash: string, pair: PairBinding): Promise<Outcome> {
    return settleTransaction(this.#outcomeContext(), {
      hash: txHash,
      pair,
      wallet: this.wallet,
      passphrase: this.#o.networkPassphrase,
    });
  }

  follow(
    pairs: readonly PairBinding[],
    from: EventCursor | null,
    onNotice: (notice: FollowerNotice) => Promise<void>,
  ): Follower {
    const deps = { rpc: this.#rpc, metrics: this.metrics, logger: this.#logger, clock: this.#clock };
    const follower = new WasmFollower(
      { ...deps, sleep: this.#sleep, options: this.#r.follower, wallet: this.wallet },
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
  async probeOrder(pair: PairBinding, side: Side, orderId: bigint): Promise<OrderProbe> {
    const call = cancelCall(pair.orderBook, this.wallet, side, orderId);
    try {
      const r = await this.#reader.simulates(call.contract, call.fn, [...call.args]);
      if (r.ok) return { onBook: true, height: BigInt(r.ledger) };
      return r.error.code === 'E_VENUE_ORDER_NOT_FOUND'
        ? { onBook: false, height: BigInt(r.ledger) }
        : { onBook: null, height: BigInt(r.ledger), reason: `${r.error.code}: ${r.error.message}` };
    } catch (e) {
      if (!isDltError(e)) throw e;
      return { onBook: null, height: 0n, reason: `${e.code}: ${e.message}` };
    }
  }

  unsettled(): InFlightTx[] {
    return [...this.#pending.values()];
  }

  /** The cross identifiers of the wallet's orders from the oldest retained ledger on (`cross-id-history.ts`). */
  crossIdentifiersSeen(pairs: readonly PairBinding[]): Promise<bigint[]> {
    return crossIdentifiersOnChain(this.#rpc, pairs, this.wallet, this.#r.follower.pageLimit);
  }

  /** Stops following and polling; outcomes still open settle as `unknown` (`settle` finds them later). */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.all([...this.#followers].map((f) => f.stop()));
    this.#followers.clear();
    await Promise.allSettled([...this.#pending.keys()]);
  }
}
