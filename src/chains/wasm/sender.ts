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
import { buildInvocation, signInvocation, type Invocation, type SignedTx } from './envelope.ts';
import type { WasmMetrics } from './metrics.ts';
import type { Clock, ResolvedOptions, Sleep, SubmitTiming } from './options.ts';
import type { WasmRpc } from './rpc-client.ts';
import type { Ed25519Signer } from './signer.ts';
import type { Source, SourcePool } from './source-pool.ts';
import { errorFromSimulation, sendErrorName } from './tx-result.ts';

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

export async function sendInvocation(d: SenderDeps, intent: TxIntent, signal: AbortSignal): Promise<SendResult> {
  const urgent = intent.kind === 'cancel';
  const waitStart = d.clock.now();
  let source: Source | null = null;
  const take = async (): Promise<Source> => {
    source = await d.pool.acquire({ signal, urgent });
    return source;
  };
  try {
    await take();
  } catch (e) {
    return { kind: 'refused', error: abortError(signal, e, 'no source account: the adapter is closing'), txHash: null };
  }
  let held = source as unknown as Source;
  let sourceWaitMs = d.clock.now() - waitStart;
  let sentSomething = false;
  const release = (how: Parameters<SourcePool['release']>[1]): void => {
    if (source === null) return;
    d.pool.release(source, how);
    source = null;
  };
  const refuse = (error: DltError, txHash: string | null): SendResult => {
    release(sentSomething ? { kind: 'notApplied' } : { kind: 'unused' });
    return { kind: 'refused', error, txHash };
  };
  let simulationMs = 0;
  let tryAgain = 0;
  let resyncs = 0;
  let timed = false;
  let lastHash: string | null = null;
  const fee = urgent ? d.options.cancelInclusionFeeStroops : d.options.inclusionFeeStroops;
  let log = d.logger.child({ ...intent.context, kind: intent.kind, source: held.address });
  try {
    for (;;) {
      if (held.sequence === null) {
        const account = await d.rpc.account(held.address);
        if (account === null) {
          return refuse(
            new DltError(
              'E_CHAIN_TX_REFUSED',
              `source account ${held.address} does not exist; create and fund it first`,
              { details: { source: held.address } },
            ),
            null,
          );
        }
        held.sequence = account.seqNum;
      }
      const raw = buildInvocation({
        source: held.address,
        sequence: held.sequence,
        feeStroops: fee,
        passphrase: d.passphrase,
        maxTime: Math.floor(d.clock.now() / 1000) + d.options.txTimeoutSeconds,
        call: intent.call,
      });
      // Withdrawn or moot while it waited for a source: never simulated.
      signal.throwIfAborted();
      const t0 = d.clock.now();
      const sim = await d.rpc.simulate(raw.toXDR());
      simulationMs += d.clock.now() - t0;
      d.metrics.simulation.observe((d.clock.now() - t0) / 1000);
      if (!sim.ok) return refuse(errorFromSimulation(sim.error, intent.context), lastHash);
      // Withdrawn meanwhile (kill switch, stale market data): never signed.
      signal.throwIfAborted();
      const signed = signInvocation({
        raw,
        simulation: sim.raw,
        auth: sim.auth,
        trading: d.trading,
        source: held.signer,
        authValidUntilLedger: sim.latestLedger + d.options.authValidityLedgers,
        passphrase: d.passphrase,
      });
      // Journalled before it can reach the network, so a crash after this line never loses it.
      d.journal.recordSigned({
        txHash: signed.hash,
        chain: 'wasm',
        wallet: d.trading.publicKey,
        source: held.address,
        sequence: signed.sequence,
        kind: intent.kind,
        clientOrderId: intent.clientOrderId,
        raw: signed.envelope,
      });
      lastHash = signed.hash;
      if (!timed) {
        timed = true;
        const toSendMs = d.clock.now() - intent.startedMs;
        d.metrics.placeToSend.observe({ kind: intent.kind }, toSendMs / 1000);
        d.onTiming?.({ kind: intent.kind, toSendMs, simulationMs, sourceWaitMs });
      }
      let reply;
      try {
        reply = await d.rpc.send(signed.envelope);
      } catch (e) {
        if (!isDltError(e, 'E_CHAIN_RPC')) throw e;
        d.journal.mark(signed.hash, 'sent');
        // The outcome poller will find out; the node's silence is its incident.
        incidentsOf(log).failed(CHAIN_NODE.wasm, d.clock.now(), 'sendTransaction (no answer)', e, {
          txHash: signed.hash,
        });
        return { kind: 'sent', source: held, signed, acknowledged: false };
      }
      if (reply.status === 'PENDING' || reply.status === 'DUPLICATE') {
        d.journal.mark(signed.hash, 'sent');
        log.info({ txHash: signed.hash, sequence: signed.sequence.toString() }, 'transaction sent');
        return { kind: 'sent', source: held, signed, acknowledged: true };
      }
      d.journal.mark(signed.hash, 'dropped');
      sentSomething = true;
      if (reply.status === 'TRY_AGAIN_LATER') {
        d.metrics.tryAgainLater.inc();
        if (++tryAgain >= d.options.tryAgainLater.maxAttempts) {
          return refuse(
            new DltError('E_CHAIN_TX_REFUSED', `node answered TRY_AGAIN_LATER ${tryAgain} times`, {
              details: { ...intent.context, source: held.address },
            }),
            signed.hash,
          );
        }
        const { baseDelayMs: baseMs, maxDelayMs: capMs } = d.options.tryAgainLater;
        const delay = backoff(tryAgain - 1, { baseMs, capMs });
        log.warn(
          { txHash: signed.hash, attempt: tryAgain, delayMs: delay },
          'TRY_AGAIN_LATER: rebuilding on the current sequence number after a pause',
        );
        // The pause holds no source: a cancel may use it meanwhile. Nothing applied: the number is reloaded.
        d.metrics.sequenceResyncs.inc({ reason: 'try_again_later' });
        release({ kind: 'notApplied' });
        sentSomething = false;
        await d.sleep(delay, signal);
        const again = d.clock.now();
        held = await take();
        sourceWaitMs += d.clock.now() - again;
        log = d.logger.child({ ...intent.context, kind: intent.kind, source: held.address });
        continue;
      }
      const name = sendErrorName(reply.errorResultXdr);
      if (name === 'txBAD_SEQ' && resyncs < d.options.maxSequenceResyncs) {
        resyncs++;
        d.metrics.sequenceResyncs.inc({ reason: 'bad_seq' });
        log.warn(
          { txHash: signed.hash, sequence: signed.sequence.toString() },
          'txBAD_SEQ: reloading the sequence number',
        );
        held.sequence = null;
        continue;
      }
      if (name === 'txTOO_LATE') {
        return refuse(
          new DltError('E_CHAIN_TX_EXPIRED', 'node refused the transaction as too late; it never applied', {
            details: { ...intent.context, result: name },
          }),
          signed.hash,
        );
      }
      return refuse(
        new DltError('E_CHAIN_TX_REFUSED', `node refused the transaction: ${name}`, {
          details: { ...intent.context, result: name, source: held.address },
        }),
        signed.hash,
      );
    }
  } catch (e) {
    const error = signal.aborted
      ? abortError(signal, e, 'the adapter is closing')
      : isDltError(e)
        ? e
        : new DltError('E_CHAIN_RPC', `submission failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    return refuse(error, lastHash);
  }
}

/** Why a wait was given up: the command was withdrawn (its reason), or the adapter is closing. */
function abortError(signal: AbortSignal, cause: unknown, closing: string): DltError {
  const reason: unknown = signal.aborted ? signal.reason : cause;
  if (isDltError(reason)) return reason;
  return new DltError('E_CHAIN_RPC', closing, { details: { kind: 'transport' }, cause });
}
