/**
 * Placements, cancellations and approvals on their way into the sending lane. A command is encoded at once (a
 * bad one is refused before signing) and joins the lane in arrival order. Simulation follows the configured mode:
 * `when-idle` simulates only a command that meets no transaction of the wallet in flight (then `eth_call` sees
 * exactly the state the transaction will), started at arrival so that it overlaps with the lane; `always` waits
 * for the wallet to go idle first (it gives up pipelining); `never` skips it. A placement whose allowance
 * projection does not cover it gets an approve ahead of it, in the same lane (`approvals.ts`).
 */
import { asDltError, DltError } from '../../core/errors.ts';
import { assertUint } from '../../core/units.ts';
import type { ApprovalStore } from '../ports.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { CHAIN_NODE, incidentsOf, isTransportFailure } from '../../telemetry/incidents.ts';
import { errorFields, isVenueRace } from '../venue-race.ts';
import type { CancelCommand, PairBinding, PlaceCommand, Submission, TokenRole } from '../types.ts';
import { Approvals } from './approvals.ts';
import { cancelCalldata, cancelContext, placeCalldata, placeContext } from './commands.ts';
import type { GasLimits } from './gas-limits.ts';
import { rpcFailureOf } from './json-rpc.ts';
import type { EvmMetrics } from './metrics.ts';
import type { Clock, ResolvedOptions, TxKind } from './options.ts';
import { revertError, revertLabel } from './revert-decoder.ts';
import type { CallRequest, EvmRpc } from './rpc-client.ts';
import { refusedSubmission, wasRefused, type TxSender } from './tx-sender.ts';
import type { TxWatcher } from './tx-watcher.ts';

export interface FlowDeps {
  readonly rpc: EvmRpc;
  readonly sender: TxSender;
  readonly watcher: TxWatcher;
  readonly gas: GasLimits;
  readonly options: ResolvedOptions;
  readonly wallet: string;
  readonly state: ApprovalStore | null;
  readonly metrics: EvmMetrics | null;
  readonly logger: Logger;
  readonly clock: Pick<Clock, 'now'>;
  /** Chain id checked and journal restored; awaited inside the lane before the first nonce. */
  readonly ready: () => Promise<void>;
}

interface Simulation {
  /** The lane's sent count when the simulation began: a later send makes its verdict stale. */
  readonly sentBefore: number;
  readonly verdict: Promise<DltError | null>;
  /** A placement's allowance, read alongside (the lane reads it anyway on an idle wallet). */
  readonly allowance: Promise<bigint> | null;
}

export class OrderFlow {
  readonly #deps: FlowDeps;
  readonly #approvals: Approvals;

  constructor(deps: FlowDeps) {
    this.#deps = deps;
    this.#approvals = new Approvals({ ...deps, options: deps.options.approvals });
  }

  place(c: PlaceCommand, startedAt: number): Promise<Submission> {
    let data: string;
    try {
      data = placeCalldata(c);
    } catch (e) {
      if (!(e instanceof DltError)) return Promise.reject(e);
      return Promise.resolve(this.#refusedUnsigned('place', placeContext(c), e));
    }
    const context = placeContext(c);
    const call = { from: this.#deps.wallet, to: c.pair.orderBook, data };
    const sim = this.#simulateIfIdle(call, context, c);
    return this.#inLane('place', context, async () => {
      // Withdrawn while it waited in the lane (kill switch, stale market data): never signed.
      if (c.signal?.aborted === true) return this.#withdrawn(context, c.signal.reason);
      const refused = await this.#placeChecks(c, sim, call, context, startedAt);
      if (refused !== null) return refused;
      const submission = await this.#deps.sender.send({
        kind: 'place',
        clientOrderId: c.clientOrderId,
        context,
        payload: { ...call, value: 0n, gasLimit: await this.#deps.gas.limit('place', call) },
        startedAt,
      });
      this.#approvals.account(c, submission);
      return submission;
    });
  }

  cancel(c: CancelCommand, startedAt: number): Promise<Submission> {
    const context = cancelContext(c);
    try {
      assertUint(c.orderId, 64, 'orderId');
    } catch (e) {
      return Promise.resolve(this.#refusedUnsigned('cancel', context, e as DltError));
    }
    const call = { from: this.#deps.wallet, to: c.pair.orderBook, data: cancelCalldata(c) };
    // Whether the order is still on the book does not depend on our transactions in flight (an order has one
    // cancellation at a time), so a cancel is simulated even while the wallet pipelines: one that finds its
    // order gone (a fill got there first) is never signed.
    const early = this.#deps.options.simulation === 'when-idle' ? this.#simulate(call, context) : null;
    return this.#inLane(
      'cancel',
      context,
      async () => {
        // The engine saw the order leave the book while the cancel waited: never signed.
        if (c.signal?.aborted === true) return this.#moot(context, c.signal.reason);
        const verdict = early === null ? null : await early;
        const refused =
          verdict !== null
            ? this.#simulatedRevert('cancel', context, verdict)
            : await this.#simulation(call, context, 'cancel');
        if (refused !== null) return refused;
        return this.#deps.sender.send({
          kind: 'cancel',
          clientOrderId: null,
          context,
          payload: { ...call, value: 0n, gasLimit: await this.#deps.gas.limit('cancel', call) },
          startedAt,
        });
      },
      true,
    );
  }

  ensureAllowance(pair: PairBinding, token: TokenRole, amount: bigint, startedAt: number): Promise<Submission | null> {
    return this.#deps.sender.enqueue(async () => {
      await this.#deps.ready();
      return this.#approvals.topUp(pair, token, amount, startedAt, null);
    });
  }

  /**
   * Runs a command's part in the lane (`urgent`: ahead of placements still waiting); a typed failure on the way
   * (a read, the chain id check) refuses it unsigned.
   */
  #inLane(
    kind: TxKind,
    context: Record<string, unknown>,
    job: () => Promise<Submission>,
    urgent = false,
  ): Promise<Submission> {
    return this.#deps.sender.enqueue(async () => {
      try {
        await this.#deps.ready();
        return await job();
      } catch (e) {
        if (e instanceof DltError) return this.#refusedUnsigned(kind, context, e);
        throw e;
      }
    }, urgent);
  }

  #moot(context: Record<string, unknown>, reason: unknown): Submission {
    const error = asDltError(reason, 'E_ORDER_STATE', 'the cancel became moot before it was signed');
    this.#deps.logger.debug(
      { ...context, ...errorFields(error) },
      'chain A cancel not sent: the order already left the book',
    );
    return refusedSubmission(error);
  }

  #withdrawn(context: Record<string, unknown>, reason: unknown): Submission {
    const error = asDltError(reason, 'E_ORDER_WITHDRAWN', 'placement withdrawn before it was signed');
    this.#deps.metrics?.submissions.inc({ kind: 'place', outcome: 'withdrawn' });
    this.#deps.logger.info({ ...context, ...errorFields(error) }, 'chain A placement withdrawn before signing');
    return refusedSubmission(error);
  }

  /** Resolves when every command already in the lane has been sent (or refused). */
  drain(): Promise<void> {
    return this.#deps.sender.enqueue(() => Promise.resolve());
  }

  #simulateIfIdle(call: CallRequest, context: Record<string, unknown>, place?: PlaceCommand): Simulation | null {
    if (this.#deps.options.simulation !== 'when-idle' || this.#deps.watcher.size > 0 || this.#deps.sender.queued > 0)
      return null;
    const allowance = place === undefined ? null : this.#approvals.readAllowance(place.pair, place.approval.token);
    // A failed read is retried in the lane; it must not surface as an unhandled rejection meanwhile.
    allowance?.catch(() => undefined);
    return { sentBefore: this.#deps.sender.sentCount, verdict: this.#simulate(call, context), allowance };
  }

  /**
   * Simulation and allowance top-up of a placement, in the order that keeps both meaningful; a refusal, or null
   * when the placement may be sent. The contract's own checks (phase, whitelist, encoding, pre-trade controls)
   * come before it takes tokens, so a simulated revert other than an allowance error stands whatever the
   * top-up does; an allowance error stands only when no top-up goes ahead of the order.
   */
  async #placeChecks(
    c: PlaceCommand,
    sim: Simulation | null,
    call: CallRequest,
    context: Record<string, unknown>,
    startedAt: number,
  ): Promise<Submission | null> {
    if (this.#deps.options.simulation === 'always') {
      const approve = await this.#approvals.topUp(c.pair, c.approval.token, c.approval.amount, startedAt, null);
      if (approve !== null && wasRefused(approve)) return approve;
      return this.#simulation(call, context, 'place');
    }
    const verdict = await this.#verdict(sim);
    if (verdict !== null && verdict.code !== 'E_VENUE_INSUFFICIENT_ALLOWANCE')
      return this.#simulatedRevert('place', context, verdict);
    const fresh = sim !== null && this.#deps.sender.sentCount === sim.sentBefore ? sim.allowance : null;
    const approve = await this.#approvals.topUp(c.pair, c.approval.token, c.approval.amount, startedAt, fresh);
    if (approve !== null && wasRefused(approve)) return approve;
    if (verdict !== null && approve === null) {
      this.#approvals.invalidate(c.pair, c.approval.token);
      return this.#simulatedRevert('place', context, verdict);
    }
    return null;
  }

  /** `always`: a refusal when the simulation, run once the wallet is idle, reverts; otherwise null. */
  async #simulation(call: CallRequest, context: Record<string, unknown>, kind: TxKind): Promise<Submission | null> {
    if (this.#deps.options.simulation !== 'always') return null;
    await this.#deps.watcher.idle();
    const verdict = await this.#simulate(call, context);
    return verdict === null ? null : this.#simulatedRevert(kind, context, verdict);
  }

  async #verdict(sim: Simulation | null): Promise<DltError | null> {
    if (sim === null) return null;
    const v = await sim.verdict;
    // Something of ours went out after the simulation began: the state it saw is gone.
    return this.#deps.sender.sentCount === sim.sentBefore ? v : null;
  }

  #simulatedRevert(kind: TxKind, context: Record<string, unknown>, verdict: DltError): Submission {
    this.#deps.metrics?.reverts.inc({ name: revertLabel(verdict) });
    return this.#refusedUnsigned(kind, context, verdict);
  }

  /** The revert the call would meet now, or null (success, or a simulation that could not run: the chain decides). */
  async #simulate(call: CallRequest, context: Record<string, unknown>): Promise<DltError | null> {
    try {
      await this.#deps.rpc.call(call, 'latest');
      return null;
    } catch (e) {
      const f = rpcFailureOf(e);
      if (f !== null && f.kind === 'rpc' && f.data !== null)
        return revertError(f.data, { ...context, simulated: true });
      incidentsOf(this.#deps.logger).failed(
        CHAIN_NODE.evm,
        this.#deps.clock.now(),
        'simulation (sent without)',
        e,
        context,
      );
      return null;
    }
  }

  #refusedUnsigned(kind: TxKind, context: Record<string, unknown>, error: DltError): Submission {
    this.#deps.metrics?.submissions.inc({ kind, outcome: 'refused' });
    const fields = { ...context, kind, ...errorFields(error) };
    if (isVenueRace(kind, error))
      this.#deps.logger.info(fields, `chain A ${kind} not sent: the order is no longer on the book`);
    else if (isTransportFailure(error.code))
      incidentsOf(this.#deps.logger).failed(CHAIN_NODE.evm, this.#deps.clock.now(), `${kind} not sent`, error, context);
    else this.#deps.logger.warn(fields, `chain A ${kind} refused before signing: ${error.message}`);
    return refusedSubmission(error);
  }
}
