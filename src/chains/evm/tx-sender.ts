/**
 * The wallet's one sending lane. Commands enter in the order they arrive (cancels ahead of waiting placements)
 * and leave one at a time: nonce, sign,
 * journal (before the broadcast, so that a crash never loses a transaction that may reach the chain), send, and
 * on to the next as soon as the node answered, without waiting for any receipt. Because sending is serial, a
 * transaction the node refuses outright gives its nonce back before a later one is handed out; answers about
 * the nonce itself (too low, held by another transaction, a gap) resync from the node and sign again.
 */
import PQueue from 'p-queue';
import { DltError } from '../../core/errors.ts';
import type { TxJournal } from '../ports.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { CHAIN_NODE, incidentsOf } from '../../telemetry/incidents.ts';
import type { Outcome, Submission } from '../types.ts';
import type { FeeOracle } from './fee-oracle.ts';
import type { EvmMetrics } from './metrics.ts';
import type { NonceSequencer } from './nonce-sequencer.ts';
import type { Clock, SubmitTiming, TxKind } from './options.ts';
import type { EvmRpc } from './rpc-client.ts';
import { broadcast } from './send-verdict.ts';
import type { TxPayload, TxSigner } from './tx-signer.ts';
import type { TxWatcher } from './tx-watcher.ts';

export interface SenderDeps {
  readonly rpc: EvmRpc;
  readonly signer: TxSigner;
  readonly fees: FeeOracle;
  readonly sequencer: NonceSequencer;
  readonly watcher: TxWatcher;
  readonly journal: TxJournal;
  readonly metrics: EvmMetrics | null;
  readonly logger: Logger;
  readonly clock: Pick<Clock, 'now'>;
  readonly maxResyncs: number;
  readonly onTiming?: ((t: SubmitTiming) => void) | undefined;
}

export interface SendRequest {
  readonly kind: TxKind;
  readonly clientOrderId: bigint | null;
  /** Pair, side, price, quantity, ids: for logs and errors. */
  readonly context: Readonly<Record<string, unknown>>;
  readonly payload: TxPayload;
  /** `performance.now()` when the command arrived, for the place-to-send timing. */
  readonly startedAt: number;
}

const refused = new WeakSet<Submission>();

/** A command refused before it was signed, or a signed one the node refused: it never applied. */
export function refusedSubmission(error: DltError, txHash: string | null = null): Submission {
  const outcome: Outcome = { kind: 'rejected', txHash, included: false, error };
  const s = { txHash, outcome: Promise.resolve(outcome) };
  refused.add(s);
  return s;
}

/** True when nothing of the submission reached the chain (refused before signing or by the node). */
export function wasRefused(s: Submission): boolean {
  return refused.has(s);
}

export class TxSender {
  readonly #deps: SenderDeps;
  readonly #lane = new PQueue({ concurrency: 1 });
  #sent = 0;

  constructor(deps: SenderDeps) {
    this.#deps = deps;
  }

  /** Commands waiting in the lane or being sent. */
  get queued(): number {
    return this.#lane.size + this.#lane.pending;
  }

  /** Transactions the node took so far: a simulation is valid only if none was sent after it began. */
  get sentCount(): number {
    return this.#sent;
  }

  /**
   * Runs `job` once the job being sent has finished, after every urgent job waiting and, unless `urgent`
   * itself, after every job enqueued before it: cancels overtake placements still waiting in the lane.
   */
  enqueue<T>(job: () => Promise<T>, urgent = false): Promise<T> {
    return this.#lane.add(job, { priority: urgent ? 1 : 0 }) as Promise<T>;
  }

  /** Signs and sends one transaction at a fresh nonce (call inside a lane job). */
  async send(req: SendRequest): Promise<Submission> {
    const d = this.#deps;
    for (let resyncs = 0; ; resyncs++) {
      let fees;
      try {
        fees = await d.fees.suggest();
      } catch (e) {
        return this.#refused(req, e instanceof DltError ? e : new DltError('E_CHAIN_RPC', String(e)), null);
      }
      const nonce = d.sequencer.allocate();
      const signed = d.signer.sign(req.payload, nonce, fees);
      d.journal.recordSigned({
        txHash: signed.hash,
        chain: 'evm',
        wallet: d.signer.address,
        source: d.signer.address,
        sequence: nonce,
        kind: req.kind,
        clientOrderId: req.clientOrderId,
        raw: signed.raw,
      });
      const toSendMs = performance.now() - req.startedAt;
      d.metrics?.placeToSend.observe({ kind: req.kind }, toSendMs / 1000);
      d.onTiming?.({ kind: req.kind, toSendMs });
      const r = await broadcast(d.rpc, signed.raw);
      const log = { ...req.context, kind: req.kind, nonce: nonce.toString(), txHash: signed.hash };
      if (r.kind === 'sent' || r.kind === 'known' || r.kind === 'uncertain') {
        if (r.kind !== 'uncertain') d.journal.mark(signed.hash, 'sent');
        this.#sent += 1;
        const slot = d.watcher.track(
          signed,
          { kind: req.kind, clientOrderId: req.clientOrderId, context: req.context, restored: false },
          r.kind === 'uncertain',
        );
        // The node's unclear answer is its incident; the receipt decides the command.
        if (r.kind === 'uncertain')
          incidentsOf(d.logger).failed(CHAIN_NODE.evm, d.clock.now(), `${req.kind} sent, answer unclear`, {
            code: 'E_CHAIN_RPC',
            reason: r.message,
          });
        else d.logger.info(log, `chain A ${req.kind} sent`);
        return { txHash: signed.hash, outcome: slot.outcome };
      }
      d.journal.mark(signed.hash, 'dropped');
      const refusal = new DltError('E_CHAIN_TX_REFUSED', `node refused the ${req.kind}: ${r.message}`, {
        details: { ...req.context, nonce: nonce.toString(), refusal: r.kind, message: r.message },
      });
      if (r.kind === 'refused') {
        d.sequencer.release(nonce);
        return this.#refused(req, refusal, signed.hash);
      }
      // The nonce itself was wrong: someone else used it, holds it in the pool, or a lower one is missing.
      const pending = await d.sequencer.resync(r.kind, d.watcher.takenNonces());
      if (r.kind === 'nonce_too_high') await d.watcher.rebroadcastFrom(pending);
      if (resyncs >= d.maxResyncs) return this.#refused(req, refusal, signed.hash);
      d.logger.warn(
        { ...log, refusal: r.kind, message: r.message },
        `chain A ${req.kind} to be signed again after a nonce resync`,
      );
    }
  }

  #refused(req: SendRequest, error: DltError, txHash: string | null): Submission {
    this.#deps.metrics?.submissions.inc({ kind: req.kind, outcome: 'refused' });
    this.#deps.logger.warn(
      { ...req.context, kind: req.kind, txHash, err: error },
      `chain A ${req.kind} refused: ${error.message}`,
    );
    return refusedSubmission(error, txHash);
  }
}
