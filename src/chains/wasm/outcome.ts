/**
 * The fate of a sent transaction, from `getTransaction`: SUCCESS is `accepted` with the order id (from
 * `OrderReceived`) and the order book events of the wallet in the transaction; FAILED is `rejected` and
 * included (fee and sequence number spent) with the contract's error. NOT_FOUND after a ledger has closed
 * later than the transaction's upper time bound means it can never apply: `rejected`, not included. A
 * transaction the node may never have received is sent again, byte for byte, while it can still apply.
 * Only when the node cannot be asked until well past the time bound is the outcome `unknown`.
 */
import { DltError, isDltError } from '../../core/errors.ts';
import { CHAIN_NODE, incidentsOf } from '../../telemetry/incidents.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { TxJournal } from '../ports.ts';
import type { ChainEvent, Outcome, PairBinding } from '../types.ts';
import { decodeContractEvent, type EventBindings } from './event-decoder.ts';
import type { WasmMetrics } from './metrics.ts';
import type { Clock, Sleep } from './options.ts';
import type { TxReply, WasmRpc } from './rpc-client.ts';
import { Malformed } from './scval.ts';
import { sendErrorName, errorFromFailedTx, feeChargedOf } from './tx-result.ts';
import { eventId, transactionEvents } from './tx-events.ts';

export interface OutcomeContext {
  readonly rpc: WasmRpc;
  readonly journal: TxJournal;
  readonly metrics: WasmMetrics;
  readonly logger: Logger;
  readonly clock: Pick<Clock, 'now'>;
  readonly sleep: Sleep;
  readonly pollIntervalMs: number;
  /** How often ledgers close, as configured: the longest an outcome waits for a newer ledger before asking. */
  readonly ledgerCloseMs: number;
  readonly graceMs: number;
  readonly signal: AbortSignal;
}

export interface TrackedTx {
  readonly hash: string;
  readonly envelope: string;
  /** Upper time bound, unix seconds (0: none). */
  readonly maxTime: bigint;
  readonly pair: PairBinding;
  readonly bindings: EventBindings;
  readonly kind: 'place' | 'cancel' | 'approve' | 'trust' | 'replace' | 'noop';
  /** The order a cancellation is for. */
  readonly orderId: bigint | null;
  readonly context: Record<string, unknown>;
}

type Found = Extract<TxReply, { status: 'SUCCESS' | 'FAILED' }>;

const MAX_REREADS = 3;

/**
 * The outcome of a transaction the node found. `complete` is false when its events could not be read (the
 * outcome then has none and no order id): worth asking again, since the reply, not the chain, was at fault.
 */
export function readOutcome(
  reply: Found,
  tx: TrackedTx,
  metrics: WasmMetrics,
  logger: Logger,
): { outcome: Outcome; complete: boolean } {
  if (reply.status === 'FAILED') {
    return {
      outcome: {
        kind: 'rejected',
        txHash: tx.hash,
        included: true,
        error: errorFromFailedTx(reply, { ...tx.context, txHash: tx.hash, ledger: reply.ledger }),
      },
      complete: true,
    };
  }
  const events: ChainEvent[] = [];
  const where = {
    txHash: tx.hash,
    height: BigInt(reply.ledger),
    blockHash: null,
    timeMs: Number(reply.createdAt) * 1000,
  };
  let raw: ReturnType<typeof transactionEvents>;
  try {
    raw = transactionEvents(reply);
  } catch (e) {
    metrics.malformed.inc({ source: 'transaction' });
    logger.warn({ txHash: tx.hash, err: (e as Error).message }, 'transaction meta does not decode');
    return {
      outcome: {
        kind: 'accepted',
        txHash: tx.hash,
        height: BigInt(reply.ledger),
        orderId: tx.kind === 'place' ? null : tx.orderId,
        events: [],
      },
      complete: false,
    };
  }
  for (const e of raw) {
    if (e.contractId !== tx.pair.orderBook) continue;
    const key =
      reply.applicationOrder === null
        ? `${tx.hash}:${e.opIndex}:${e.eventIndex}`
        : eventId(reply.ledger, reply.applicationOrder, e.opIndex, e.eventIndex);
    try {
      const decoded = decodeContractEvent(tx.bindings, e.contractId, e.topics, e.data, { ...where, key });
      if (decoded !== null) events.push(decoded);
    } catch (err) {
      if (!(err instanceof Malformed)) throw err;
      metrics.malformed.inc({ source: 'transaction' });
      logger.warn({ txHash: tx.hash, key, err: err.message }, 'order book event does not decode; skipped');
    }
  }
  const received = events.find((e) => e.type === 'OrderReceived');
  const cancelled = events.find((e) => e.type === 'OrderCancelled');
  const orderId =
    tx.kind === 'place'
      ? received?.type === 'OrderReceived'
        ? received.orderId
        : null
      : (tx.orderId ?? (cancelled?.type === 'OrderCancelled' ? cancelled.orderId : null));
  return {
    outcome: { kind: 'accepted', txHash: tx.hash, height: BigInt(reply.ledger), orderId, events },
    complete: true,
  };
}

export function outcomeOfReply(reply: Found, tx: TrackedTx, metrics: WasmMetrics, logger: Logger): Outcome {
  return readOutcome(reply, tx, metrics, logger).outcome;
}

function expired(tx: TrackedTx): Outcome {
  return {
    kind: 'rejected',
    txHash: tx.hash,
    included: false,
    error: new DltError(
      'E_CHAIN_TX_EXPIRED',
      `transaction ${tx.hash} passed its time bound (${tx.maxTime}) without inclusion; it never applied`,
      {
        details: { ...tx.context, txHash: tx.hash, maxTime: tx.maxTime.toString() },
      },
    ),
  };
}

/**
 * Waits until a reply of the node names a ledger after `ledger` (the follower's next round, another outcome's
 * poll), for at least the poll interval and at most until the ledger after it should have closed: a transaction
 * not found in `ledger` can only be found in a later one, so asking again before one closed is a wasted request.
 */
function nextLedger(ctx: OutcomeContext, ledger: number): Promise<void> {
  const { pollIntervalMs: minMs, ledgerCloseMs: closeMs, sleep, signal } = ctx;
  return ctx.rpc.ledgers.next(ledger, { minMs, closeMs, nowMs: ctx.clock.now(), sleep, signal });
}

/**
 * Polls until the chain decides, once per new ledger (see `nextLedger`). `acknowledged` is false when the node's
 * answer to the send was lost: the envelope is then sent again on each poll until the node acknowledges it (the
 * same bytes can apply once).
 */
export async function awaitOutcome(ctx: OutcomeContext, tx: TrackedTx, acknowledged: boolean): Promise<Outcome> {
  const deadlineMs = tx.maxTime === 0n ? Number.POSITIVE_INFINITY : Number(tx.maxTime) * 1000 + ctx.graceMs;
  // An acknowledged send goes into the ledger after the one its reply named: nothing to ask before that closes.
  let notIn: number | null = acknowledged && ctx.rpc.ledgers.last.height > 0 ? ctx.rpc.ledgers.last.height : null;
  if (notIn !== null) await nextLedger(ctx, notIn);
  let resend = !acknowledged;
  let lastProblem = 'no answer from the node yet';
  // Included, but its events did not read: asked again a few times before settling without them.
  let unreadable: Outcome | null = null;
  let rereads = 0;
  for (;;) {
    if (ctx.signal.aborted)
      return unreadable ?? { kind: 'unknown', txHash: tx.hash, reason: 'the adapter closed before the chain decided' };
    notIn = null;
    try {
      const reply = await ctx.rpc.transaction(tx.hash);
      if (reply.status !== 'NOT_FOUND') {
        const read = readOutcome(reply, tx, ctx.metrics, ctx.logger);
        ctx.journal.mark(
          tx.hash,
          reply.status === 'SUCCESS' ? 'included' : 'failed',
          null,
          feeChargedOf(reply.resultXdr),
        );
        if (read.complete || ++rereads > MAX_REREADS) return read.outcome;
        unreadable = read.outcome;
        lastProblem = 'events unreadable';
      } else {
        const closeTime = reply.latestLedgerCloseTime ?? (await ctx.rpc.latestLedger()).closeTime;
        if (tx.maxTime !== 0n && closeTime !== null && closeTime > tx.maxTime) {
          ctx.journal.mark(tx.hash, 'dropped');
          return expired(tx);
        }
        if (resend) {
          const sent = await ctx.rpc.send(tx.envelope);
          if (sent.status === 'PENDING' || sent.status === 'DUPLICATE') {
            resend = false;
            ctx.journal.mark(tx.hash, 'sent');
          } else if (sent.status === 'ERROR' && sendErrorName(sent.errorResultXdr) === 'txTOO_LATE') {
            ctx.journal.mark(tx.hash, 'dropped');
            return expired(tx);
          }
        }
        lastProblem = 'not found yet';
        notIn = reply.latestLedger;
      }
    } catch (e) {
      if (!isDltError(e)) throw e;
      lastProblem = e.message;
      incidentsOf(ctx.logger).failed(CHAIN_NODE.wasm, ctx.clock.now(), 'transaction status', e, { txHash: tx.hash });
    }
    if (ctx.clock.now() > deadlineMs) {
      if (unreadable !== null) return unreadable;
      return {
        kind: 'unknown',
        txHash: tx.hash,
        reason: `no decision by ${new Date(deadlineMs).toISOString()}: ${lastProblem}`,
      };
    }
    if (notIn !== null) await nextLedger(ctx, notIn);
    else
      try {
        await ctx.sleep(ctx.pollIntervalMs, ctx.signal);
      } catch {
        // Aborted: the loop head reports it.
      }
  }
}
