/**
 * Settling a transaction whose outcome was left open (by a stop, a crash or an unreachable node): asked of
 * the node first; if the node does not know it and its time bound has not passed, the journal's envelope is
 * sent again, byte for byte (the same bytes can apply only once), and followed to its fate. Without the
 * node's answer or a journalled envelope, the outcome stays `unknown`: it is never guessed.
 */
import { isDltError } from '../../core/errors.ts';
import type { Outcome, PairBinding } from '../types.ts';
import { envelopeInfo } from './envelope.ts';
import { EventBindings } from './event-decoder.ts';
import { awaitOutcome, outcomeOfReply, type OutcomeContext, type TrackedTx } from './outcome.ts';
import { feeChargedOf } from './tx-result.ts';

export interface SettleRequest {
  readonly hash: string;
  readonly pair: PairBinding;
  readonly wallet: string;
  readonly passphrase: string;
}

export async function settleTransaction(ctx: OutcomeContext, r: SettleRequest): Promise<Outcome> {
  const record = ctx.journal.get(r.hash);
  const info = record === undefined ? null : envelopeInfo(record.raw, r.passphrase);
  const tracked: TrackedTx = {
    hash: r.hash,
    envelope: record?.raw ?? '',
    maxTime: info?.maxTime ?? 0n,
    pair: r.pair,
    bindings: new EventBindings(r.wallet, [r.pair]),
    kind: record?.kind ?? 'place',
    orderId: null,
    context: { pair: r.pair.pairId, clientOrderId: record?.clientOrderId?.toString() ?? null, settling: true },
  };
  try {
    const reply = await ctx.rpc.transaction(r.hash);
    if (reply.status !== 'NOT_FOUND') {
      ctx.journal.mark(r.hash, reply.status === 'SUCCESS' ? 'included' : 'failed', null, feeChargedOf(reply.resultXdr));
      return outcomeOfReply(reply, tracked, ctx.metrics, ctx.logger);
    }
  } catch (e) {
    if (!isDltError(e)) throw e;
    return { kind: 'unknown', txHash: r.hash, reason: `the node could not be asked: ${e.message}` };
  }
  if (record === undefined || info === null) {
    return {
      kind: 'unknown',
      txHash: r.hash,
      reason: 'the node does not know the transaction and the journal has no envelope for it',
    };
  }
  return awaitOutcome(ctx, tracked, false);
}
