/**
 * A mined receipt as the command's outcome. Success: the order book events of the transaction, decoded, and the
 * order id from `OrderReceived`. Status 0: the revert, decoded; receipts carry no revert data, so the call is
 * replayed with `eth_call` at the receipt's block (where the wallet's earlier transactions of the same block
 * count) and, if that does not revert, at the block before. A zero-value self-transfer mined at the nonce means
 * the command itself never applied. Every outcome read from a receipt names the receipt's block.
 */
import { DltError } from '../../core/errors.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { errorFields, isVenueRace } from '../venue-race.ts';
import type { ChainEvent, Outcome } from '../types.ts';
import type { BlockCache } from './block-cache.ts';
import { rpcFailureOf } from './json-rpc.ts';
import { decodeLog, parseRawLog, type DecodeContext } from './log-decoder.ts';
import type { EvmMetrics } from './metrics.ts';
import type { Attempt, NonceSlot } from './nonce-slot.ts';
import type { TxKind } from './options.ts';
import { revertError, revertLabel } from './revert-decoder.ts';
import type { Receipt, EvmRpc } from './rpc-client.ts';
import type { TxPayload } from './tx-signer.ts';

export interface OutcomeDeps {
  readonly rpc: EvmRpc;
  readonly blocks: BlockCache;
  readonly metrics: EvmMetrics | null;
  readonly logger: Logger;
  readonly wallet: string;
}

export interface MinedCommand {
  readonly kind: TxKind;
  readonly nonce: bigint;
  /** What the command's own transactions carried (the self-transfer cancel carries something else). */
  readonly payload: TxPayload;
  /** True when the mined transaction is the zero-value self-transfer that cancelled the nonce. */
  readonly cancelledBySelfTransfer: boolean;
  readonly context: Readonly<Record<string, unknown>>;
}

/** The command of a nonce slot whose transaction `mined` has a receipt. */
export function minedCommandOf(slot: NonceSlot, mined: Attempt): MinedCommand {
  return {
    kind: slot.command.kind,
    nonce: slot.nonce,
    payload: (slot.attempts[0] ?? mined).signed.payload,
    cancelledBySelfTransfer: mined.role === 'cancel',
    context: slot.command.context,
  };
}

/** Order book events of a receipt in log order; malformed logs are counted and skipped. */
export function receiptEvents(
  receipt: Receipt,
  ctx: DecodeContext,
  timeMs: number,
  deps: Pick<OutcomeDeps, 'metrics' | 'logger'>,
): ChainEvent[] {
  const out: ChainEvent[] = [];
  for (const raw of receipt.logs) {
    try {
      const e = decodeLog(parseRawLog(raw), ctx, timeMs);
      if (e !== null && e.type !== 'Transfer') out.push(e);
    } catch (err) {
      deps.metrics?.malformed.inc({ source: 'receipt_log' });
      deps.logger.warn({ txHash: receipt.txHash, err }, 'malformed log in a chain A receipt; skipped');
    }
  }
  return out;
}

export async function outcomeOfReceipt(
  receipt: Receipt,
  command: MinedCommand,
  ctx: DecodeContext,
  deps: OutcomeDeps,
): Promise<Outcome> {
  const block = { height: receipt.blockNumber, hash: receipt.blockHash };
  if (command.cancelledBySelfTransfer) {
    return {
      kind: 'rejected',
      txHash: receipt.txHash,
      included: false,
      block,
      error: new DltError(
        'E_CHAIN_TX_EXPIRED',
        `not mined in time; nonce ${command.nonce} was cancelled with a zero-value self-transfer`,
        {
          details: {
            ...command.context,
            reason: 'cancelled',
            nonce: command.nonce.toString(),
            cancelTxHash: receipt.txHash,
          },
        },
      ),
    };
  }
  if (receipt.status === 1) {
    const header = await deps.blocks.header(receipt.blockNumber, receipt.blockHash).catch(() => null);
    const events = receiptEvents(receipt, ctx, header?.timestampMs ?? 0, deps);
    const received = events.find((e) => e.type === 'OrderReceived' && e.client.toLowerCase() === deps.wallet);
    const cancelled = events.find((e) => e.type === 'OrderCancelled');
    const orderId =
      received?.type === 'OrderReceived'
        ? received.orderId
        : cancelled?.type === 'OrderCancelled'
          ? cancelled.orderId
          : null;
    return { kind: 'accepted', txHash: receipt.txHash, height: receipt.blockNumber, orderId, events, block };
  }
  const error = await replayRevert(receipt, command, deps);
  deps.metrics?.reverts.inc({ name: revertLabel(error) });
  const fields = {
    ...command.context,
    txHash: receipt.txHash,
    block: receipt.blockNumber.toString(),
    ...errorFields(error),
  };
  if (isVenueRace(command.kind, error))
    deps.logger.info(
      fields,
      `chain A ${command.kind} met an order already gone (a fill or cancellation in the same block)`,
    );
  else deps.logger.warn(fields, `chain A ${command.kind} reverted: ${error.message}`);
  return { kind: 'rejected', txHash: receipt.txHash, included: true, error, block };
}

/** How many times a replay the node did not answer is asked again (a dropped request, a 503). */
const REPLAY_TRIES = 4;

/**
 * The revert data of `call` replayed at block `at`, or null when it does not revert there. A replay the node did
 * not answer is asked again: without it, a cancel that met an order already gone would read as an unexplained
 * revert, and be said and tried again as one.
 */
async function replayedRevertData(
  rpc: EvmRpc,
  call: Parameters<EvmRpc['call']>[0],
  at: bigint,
): Promise<string | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      await rpc.call(call, at);
      return null;
    } catch (e) {
      const f = rpcFailureOf(e);
      if (f?.kind === 'rpc') return f.data;
      if (f?.kind !== 'transport' || attempt >= REPLAY_TRIES) return null;
    }
  }
}

async function replayRevert(receipt: Receipt, command: MinedCommand, deps: OutcomeDeps): Promise<DltError> {
  const context = { ...command.context, txHash: receipt.txHash, block: receipt.blockNumber.toString() };
  const call = {
    from: deps.wallet,
    to: command.payload.to,
    data: command.payload.data,
    value: command.payload.value,
    gas: command.payload.gasLimit,
  };
  for (const at of [receipt.blockNumber, receipt.blockNumber - 1n]) {
    const data = await replayedRevertData(deps.rpc, call, at);
    if (data !== null) return revertError(data, context);
  }
  if (receipt.gasUsed >= command.payload.gasLimit) {
    return new DltError('E_VENUE_CONTRACT_ERROR', `ran out of gas at its limit of ${command.payload.gasLimit}`, {
      details: {
        ...context,
        name: '(out of gas)',
        gasUsed: receipt.gasUsed.toString(),
        gasLimit: command.payload.gasLimit.toString(),
      },
    });
  }
  return revertError(null, { ...context, note: 'the replay did not reproduce the revert' });
}
