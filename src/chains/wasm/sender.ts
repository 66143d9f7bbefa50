/**
 * From a contract call to a transaction the node holds: take a source, build on its sequence number,
 * simulate (a simulated error refuses the command before anything is signed), sign, journal the envelope,
 * send. The node's refusals are handled as the network documents them: TRY_AGAIN_LATER (not accepted;
 * rebuilt on the source's current sequence number and sent again with backoff), txBAD_SEQ (the sequence
 * number moved under us: reloaded and rebuilt), DUPLICATE (already held: as good as PENDING); any other
 * refusal never applied. A send whose answer is lost counts as sent: the outcome poller finds out.
 */
import { backoff } from '../../core/backoff.ts';
import { DltError, isDltError } from '../../core/errors.ts';
import { CHAIN_NODE, incidentsOf } from '../../telemetry/incidents.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { TxJournal } from '../ports.ts';
import { buildInvocation, signInvocation } from './envelope.ts';
import type { Invocation, SignedTx, UnsignedInvocation } from './envelope.ts';
import type { WasmMetrics } from './metrics.ts';
import type { Clock, ResolvedOptions, Sleep, SubmitTiming } from './options.ts';
import type { SendReply, SimulationReply, WasmRpc } from './rpc-client.ts';
import type { Ed25519Signer } from './signer.ts';
import type { Source, SourcePool } from './source-pool.ts';
import { errorFromRefusal, errorFromSimulation, sendErrorName } from './tx-result.ts';

export interface SenderDeps {
  readonly rpc: WasmRpc;
  readonly pool: SourcePool;
  readonly journal: TxJournal;
  readonly trading: Ed25519Signer;
  readonly passphrase: string;
  readonly options: ResolvedOptions;
  readonly clock: Pick<Clock, 'now'>;
  readonly sleep: Sleep;
  readonly metrics: WasmMetrics;
  readonly logger: Logger;
  readonly onTiming: ((t: SubmitTiming) => void) | undefined;
}

export interface TxIntent {
  readonly kind: 'place' | 'cancel' | 'approve';
  readonly call: Invocation;
  readonly clientOrderId: bigint | null;
  /** Log and error context: pair, side, price, quantity, ids. */
  readonly context: Record<string, unknown>;
  /** When the command arrived (clock ms), for the place-to-send timing. */
  readonly startedMs: number;
}

export type SendResult =
  | {
      readonly kind: 'sent';
      readonly source: Source;
      readonly signed: SignedTx;
      /** False when the node's answer was lost: it may not hold the transaction. */
      readonly acknowledged: boolean;
    }
  | { readonly kind: 'refused'; readonly error: DltError; readonly txHash: string | null };

export async function sendInvocation(deps: SenderDeps, intent: TxIntent, signal: AbortSignal): Promise<SendResult> {
  const waitStart = deps.clock.now();
  let source: Source;
  try {
    source = await deps.pool.acquire({ signal, urgent: intent.kind === 'cancel' });
  } catch (e) {
    return { kind: 'refused', error: abortError(signal, e, 'no source account: the adapter is closing'), txHash: null };
  }
  return new InvocationSend(deps, intent, signal, source, deps.clock.now() - waitStart).run();
}

type Simulated = Extract<SimulationReply, { ok: true }>;

/** One command's way to the node: the source it holds, the envelopes it signed, the refusals it met. */
class InvocationSend {
  readonly #deps: SenderDeps;
  readonly #intent: TxIntent;
  readonly #signal: AbortSignal;
  readonly #urgent: boolean;
  readonly #fee: number;
  /** The source held from the pool (null once given back). */
  #source: Source | null;
  /** The source the envelopes are built on. */
  #held: Source;
  #sourceWaitMs: number;
  #sentSomething = false;
  #simulationMs = 0;
  #tryAgain = 0;
  #resyncs = 0;
  #timed = false;
  #lastHash: string | null = null;
  #log: Logger;

  constructor(deps: SenderDeps, intent: TxIntent, signal: AbortSignal, source: Source, sourceWaitMs: number) {
    this.#deps = deps;
    this.#intent = intent;
    this.#signal = signal;
    this.#urgent = intent.kind === 'cancel';
    this.#fee = this.#urgent ? deps.options.cancelInclusionFeeStroops : deps.options.inclusionFeeStroops;
    this.#source = source;
    this.#held = source;
    this.#sourceWaitMs = sourceWaitMs;
    this.#log = this.#logFor(source);
  }

  async run(): Promise<SendResult> {
    try {
      for (;;) {
        const step = await this.#attempt();
        if (step !== 'again') return step;
      }
    } catch (e) {
      const error = submissionError(this.#signal, e);
      return this.#refuse(error, this.#lastHash);
    }
  }

  #logFor(source: Source): Logger {
    return this.#deps.logger.child({ ...this.#intent.context, kind: this.#intent.kind, source: source.address });
  }

  #release(how: Parameters<SourcePool['release']>[1]): void {
    if (this.#source === null) return;
    this.#deps.pool.release(this.#source, how);
    this.#source = null;
  }

  #refuse(error: DltError, txHash: string | null): SendResult {
    this.#release(this.#sentSomething ? { kind: 'notApplied' } : { kind: 'unused' });
    return { kind: 'refused', error, txHash };
  }

  /** Build on the source's sequence number, simulate, sign, journal and send: a result, or `again`. */
  async #attempt(): Promise<SendResult | 'again'> {
    const deps = this.#deps;
    const held = this.#held;
    if (held.sequence === null) {
      const account = await deps.rpc.account(held.address);
      if (account === null) {
        return this.#refuse(
          new DltError(
            'E_CHAIN_TX_REFUSED',
            `source account ${held.address} does not exist; create and fund it first`,
            {
              details: { source: held.address },
            },
          ),
          null,
        );
      }
      held.sequence = account.seqNum;
    }
    const raw = buildInvocation({
      source: held.address,
      sequence: held.sequence,
      feeStroops: this.#fee,
      passphrase: deps.passphrase,
      maxTime: Math.floor(deps.clock.now() / 1000) + deps.options.txTimeoutSeconds,
      call: this.#intent.call,
    });
    // Withdrawn or moot while it waited for a source, or before its batch leaves: never simulated.
    this.#signal.throwIfAborted();
    const sim = await this.#simulate(raw);
    if (!sim.ok) return this.#refuse(errorFromSimulation(sim.error, this.#intent.context), this.#lastHash);
    // Withdrawn meanwhile (kill switch, stale market data): never signed.
    this.#signal.throwIfAborted();
    const signed = this.#signAndJournal(raw, sim);
    this.#observeTiming();
    return this.#send(signed);
  }

  async #simulate(raw: UnsignedInvocation): Promise<SimulationReply> {
    const deps = this.#deps;
    const t0 = deps.clock.now();
    const sim = await deps.rpc.simulate(raw.xdr, this.#signal);
    this.#simulationMs += deps.clock.now() - t0;
    deps.metrics.simulation.observe((deps.clock.now() - t0) / 1000);
    return sim;
  }

  #signAndJournal(raw: UnsignedInvocation, sim: Simulated): SignedTx {
    const deps = this.#deps;
    const signed = signInvocation({
      raw,
      simulation: sim.raw,
      auth: sim.auth,
      trading: deps.trading,
      source: this.#held.signer,
      authValidUntilLedger: sim.latestLedger + deps.options.authValidityLedgers,
      passphrase: deps.passphrase,
    });
    // Journalled before it can reach the network, so a crash after this line never loses it.
    deps.journal.recordSigned({
      txHash: signed.hash,
      chain: 'wasm',
      wallet: deps.trading.publicKey,
      source: this.#held.address,
      sequence: signed.sequence,
      kind: this.#intent.kind,
      clientOrderId: this.#intent.clientOrderId,
      raw: signed.envelope,
    });
    this.#lastHash = signed.hash;
    return signed;
  }

  /** The place-to-send timing, of the first envelope only. */
  #observeTiming(): void {
    if (this.#timed) return;
    this.#timed = true;
    const deps = this.#deps;
    const kind = this.#intent.kind;
    const toSendMs = deps.clock.now() - this.#intent.startedMs;
    deps.metrics.placeToSend.observe({ kind }, toSendMs / 1000);
    deps.onTiming?.({ kind, toSendMs, simulationMs: this.#simulationMs, sourceWaitMs: this.#sourceWaitMs });
  }

  async #send(signed: SignedTx): Promise<SendResult | 'again'> {
    const deps = this.#deps;
    let reply: SendReply;
    try {
      reply = await deps.rpc.send(signed.envelope);
    } catch (e) {
      if (!isDltError(e, 'E_CHAIN_RPC')) throw e;
      deps.journal.mark(signed.hash, 'sent');
      // The outcome poller will find out; the node's silence is its incident.
      incidentsOf(this.#log).failed(CHAIN_NODE.wasm, deps.clock.now(), 'sendTransaction (no answer)', e, {
        txHash: signed.hash,
      });
      return { kind: 'sent', source: this.#held, signed, acknowledged: false };
    }
    if (reply.status === 'PENDING' || reply.status === 'DUPLICATE') {
      deps.journal.mark(signed.hash, 'sent');
      this.#log.info({ txHash: signed.hash, sequence: signed.sequence.toString() }, 'transaction sent');
      return { kind: 'sent', source: this.#held, signed, acknowledged: true };
    }
    deps.journal.mark(signed.hash, 'dropped');
    this.#sentSomething = true;
    if (reply.status === 'TRY_AGAIN_LATER') return this.#tryAgainLater(signed);
    return this.#refused(signed, reply);
  }

  async #tryAgainLater(signed: SignedTx): Promise<SendResult | 'again'> {
    const deps = this.#deps;
    deps.metrics.tryAgainLater.inc();
    if (++this.#tryAgain >= deps.options.tryAgainLater.maxAttempts) {
      return this.#refuse(
        new DltError('E_CHAIN_TX_REFUSED', `node answered TRY_AGAIN_LATER ${this.#tryAgain} times`, {
          details: { ...this.#intent.context, source: this.#held.address },
        }),
        signed.hash,
      );
    }
    const { baseDelayMs: baseMs, maxDelayMs: capMs } = deps.options.tryAgainLater;
    const delay = backoff(this.#tryAgain - 1, { baseMs, capMs });
    this.#log.warn(
      { txHash: signed.hash, attempt: this.#tryAgain, delayMs: delay },
      'TRY_AGAIN_LATER: rebuilding on the current sequence number after a pause',
    );
    // The pause holds no source: a cancel may use it meanwhile. Nothing applied: the number is reloaded.
    deps.metrics.sequenceResyncs.inc({ reason: 'try_again_later' });
    this.#release({ kind: 'notApplied' });
    this.#sentSomething = false;
    await deps.sleep(delay, this.#signal);
    const again = deps.clock.now();
    const source = await deps.pool.acquire({ signal: this.#signal, urgent: this.#urgent });
    this.#source = source;
    this.#held = source;
    this.#sourceWaitMs += deps.clock.now() - again;
    this.#log = this.#logFor(source);
    return 'again';
  }

  /** The node refused the envelope: a moved sequence number is reloaded, anything else refuses the command. */
  #refused(signed: SignedTx, reply: SendReply): SendResult | 'again' {
    const deps = this.#deps;
    const name = sendErrorName(reply.errorResultXdr);
    if (name === 'txBAD_SEQ' && this.#resyncs < deps.options.maxSequenceResyncs) {
      this.#resyncs++;
      deps.metrics.sequenceResyncs.inc({ reason: 'bad_seq' });
      this.#log.warn(
        { txHash: signed.hash, sequence: signed.sequence.toString() },
        'txBAD_SEQ: reloading the sequence number',
      );
      this.#held.sequence = null;
      return 'again';
    }
    return this.#refuse(errorFromRefusal(name, this.#intent.context, this.#held.address), signed.hash);
  }
}

/** Why a submission stopped on an exception: the command withdrawn, the adapter closing, or the error itself. */
function submissionError(signal: AbortSignal, e: unknown): DltError {
  if (signal.aborted) return abortError(signal, e, 'the adapter is closing');
  if (isDltError(e)) return e;
  return new DltError('E_CHAIN_RPC', `submission failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/** Why a wait was given up: the command was withdrawn (its reason), or the adapter is closing. */
function abortError(signal: AbortSignal, cause: unknown, closing: string): DltError {
  const reason: unknown = signal.aborted ? signal.reason : cause;
  if (isDltError(reason)) return reason;
  return new DltError('E_CHAIN_RPC', closing, { details: { kind: 'transport' }, cause });
}
