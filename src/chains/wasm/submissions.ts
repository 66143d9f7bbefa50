/**
 * A chain B command's transaction from the adapter to its outcome: sent through `sender.ts` on a source of
 * the pool, a refusal answered as a rejected submission (logged and counted as the kind of refusal it is),
 * an accepted send followed with `getTransaction` until the chain decides, and the source given back as the
 * outcome says (its sequence number used, not used, or unknown until the time bound passed). The
 * transactions whose outcome is still open are the adapter's unsettled ones.
 */
import { asDltError, type DltError } from '../../core/errors.ts';
import { CHAIN_NODE, incidentsOf, isTransportFailure } from '../../telemetry/incidents.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { TxJournal } from '../ports.ts';
import type { InFlightTx, Outcome, PairBinding, Submission } from '../types.ts';
import { errorFields, isVenueRace } from '../venue-race.ts';
import { EventBindings } from './event-decoder.ts';
import type { WasmMetrics } from './metrics.ts';
import type { Clock, ResolvedOptions, SubmitTiming } from './options.ts';
import { awaitOutcome, type OutcomeContext, type TrackedTx } from './outcome.ts';
import type { WasmRpc } from './rpc-client.ts';
import { sendInvocation, type SenderDeps, type SendResult, type TxIntent } from './sender.ts';
import type { Ed25519Signer } from './signer.ts';
import type { SourcePool } from './source-pool.ts';

export interface SubmissionsDeps {
  readonly rpc: WasmRpc;
  readonly sending: WasmRpc;
  /** The outcome polls' node: one that gathers the calls of a turn into a batch (a new ledger wakes them all). */
  readonly polls: WasmRpc;
  readonly pool: SourcePool;
  readonly journal: TxJournal;
  readonly trading: Ed25519Signer;
  readonly passphrase: string;
  readonly options: ResolvedOptions;
  readonly clock: Clock;
  readonly metrics: WasmMetrics;
  readonly logger: Logger;
  readonly onTiming: ((t: SubmitTiming) => void) | undefined;
  /** Aborted when the adapter closes. */
  readonly closing: AbortSignal;
}

/** A submission that never reached the chain, or that the chain refused. */
export function refused(error: DltError, txHash: string | null = null): Submission {
  return { txHash, outcome: Promise.resolve({ kind: 'rejected', txHash, error, included: false }) };
}

export class Submissions {
  readonly #deps: SubmissionsDeps;
  readonly #pending = new Map<Promise<Outcome>, InFlightTx>();

  constructor(deps: SubmissionsDeps) {
    this.#deps = deps;
  }

  /** What the outcome poller and `settle` need. */
  outcomeContext(): OutcomeContext {
    const deps = this.#deps;
    return {
      rpc: deps.polls,
      journal: deps.journal,
      metrics: deps.metrics,
      logger: deps.logger,
      clock: deps.clock,
      sleep: deps.clock.sleep,
      pollIntervalMs: deps.options.pollIntervalMs,
      ledgerCloseMs: deps.options.ledgerCloseMs,
      graceMs: deps.options.outcomeGraceMs,
      signal: deps.closing,
    };
  }

  #senderDeps(): SenderDeps {
    const deps = this.#deps;
    return { ...deps, rpc: deps.sending, sleep: deps.clock.sleep };
  }

  /** The transactions sent whose outcome is still open. */
  unsettled(): InFlightTx[] {
    return [...this.#pending.values()];
  }

  /** Resolves once every open outcome has settled (as `unknown`, when the adapter is closing). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#pending.keys()]);
  }

  withdrawn(context: Record<string, unknown>, reason: unknown): Submission {
    const error = asDltError(reason, 'E_ORDER_WITHDRAWN', 'placement withdrawn before it was signed');
    this.#deps.metrics.submissions.inc({ kind: 'place', outcome: 'withdrawn' });
    this.#deps.logger.info({ ...context, ...errorFields(error) }, 'placement withdrawn before signing');
    return refused(error);
  }

  /** A command that did not apply: a failing node is its incident, any other refusal a warning. */
  refuse(kind: string, error: DltError, context: Record<string, unknown> = {}, txHash: string | null = null) {
    this.#deps.metrics.submissions.inc({ kind, outcome: 'refused' });
    const fields = { ...context, kind, txHash, ...errorFields(error) };
    if (isTransportFailure(error.code))
      incidentsOf(this.#deps.logger).failed(CHAIN_NODE.wasm, this.#deps.clock.now(), `${kind} not sent`, error, fields);
    else this.#deps.logger.warn(fields, txHash === null ? 'command refused before signing' : 'command refused');
    return refused(error, txHash);
  }

  async send(
    intent: TxIntent,
    pair: PairBinding,
    orderId: bigint | null,
    signal: AbortSignal = this.#deps.closing,
  ): Promise<Submission> {
    const res = await sendInvocation(this.#senderDeps(), intent, signal);
    if (res.kind === 'refused') return this.#refused(intent, res, signal);
    return this.#follow(intent, res, pair, orderId);
  }

  #refused(intent: TxIntent, res: Extract<SendResult, { kind: 'refused' }>, signal: AbortSignal): Submission {
    if (res.error.code === 'E_ORDER_WITHDRAWN') return this.withdrawn(intent.context, res.error);
    if (intent.kind === 'cancel' && res.error.code === 'E_ORDER_STATE' && signal.aborted) {
      // The engine saw the order leave the book while the cancel waited: never simulated nor signed.
      this.#deps.logger.debug(
        { ...intent.context, ...errorFields(res.error) },
        'cancel not sent: the order already left the book',
      );
      return refused(res.error);
    }
    if (!isVenueRace(intent.kind, res.error)) return this.refuse(intent.kind, res.error, intent.context, res.txHash);
    this.#deps.metrics.submissions.inc({ kind: intent.kind, outcome: 'refused' });
    const fields = { ...intent.context, kind: intent.kind, txHash: res.txHash, ...errorFields(res.error) };
    this.#deps.logger.info(fields, 'cancel not sent: the order is no longer on the book');
    return refused(res.error, res.txHash);
  }

  /** Follows a sent transaction to its outcome, then gives its source back as the outcome says. */
  #follow(
    intent: TxIntent,
    res: Extract<SendResult, { kind: 'sent' }>,
    pair: PairBinding,
    orderId: bigint | null,
  ): Submission {
    const { signed, source } = res;
    const tracked: TrackedTx = {
      hash: signed.hash,
      envelope: signed.envelope,
      maxTime: signed.maxTime,
      pair,
      bindings: new EventBindings(this.#deps.trading.publicKey, [pair]),
      kind: intent.kind,
      orderId,
      context: intent.context,
    };
    const pool = this.#deps.pool;
    const outcome = awaitOutcome(this.outcomeContext(), tracked, res.acknowledged)
      .catch((e: unknown): Outcome => ({
        kind: 'unknown',
        txHash: signed.hash,
        reason: e instanceof Error ? e.message : String(e),
      }))
      .then((o) => {
        if (o.kind === 'unknown')
          pool.release(source, {
            kind: 'unknown',
            restUntilMs: Number(signed.maxTime) * 1000 + this.#deps.options.outcomeGraceMs,
          });
        else if (o.kind === 'accepted' || o.included)
          pool.release(source, { kind: 'included', sequence: signed.sequence });
        else {
          this.#deps.metrics.sequenceResyncs.inc({ reason: 'not_applied' });
          pool.release(source, { kind: 'notApplied' });
        }
        this.#logOutcome(intent, o);
        return o;
      });
    this.#pending.set(outcome, { txHash: signed.hash, kind: intent.kind, context: intent.context });
    void outcome.finally(() => this.#pending.delete(outcome));
    return { txHash: signed.hash, outcome };
  }

  #logOutcome(intent: TxIntent, outcome: Outcome): void {
    const logger = this.#deps.logger;
    this.#deps.metrics.submissions.inc({ kind: intent.kind, outcome: outcome.kind });
    const base = { ...intent.context, kind: intent.kind, txHash: outcome.txHash, outcome: outcome.kind };
    if (outcome.kind === 'accepted')
      logger.info(
        {
          ...base,
          orderId: outcome.orderId?.toString() ?? null,
          ledger: outcome.height.toString(),
          events: outcome.events.length,
        },
        'transaction included',
      );
    else if (outcome.kind === 'rejected' && isVenueRace(intent.kind, outcome.error))
      logger.info(
        { ...base, included: outcome.included, ...errorFields(outcome.error) },
        'cancel met an order already gone (a fill or cancellation in the same ledger)',
      );
    else if (outcome.kind === 'rejected')
      logger.warn({ ...base, included: outcome.included, ...errorFields(outcome.error) }, 'transaction rejected');
    else logger.warn({ ...base, reason: outcome.reason }, 'transaction outcome unknown');
  }
}
