/**
 * Sends a nonce in flight again with higher fees: the same payload (`bump`) or a zero-value self-transfer
 * that takes the nonce back (`cancel`). Every replacement is journalled before it is sent; at the fee cap
 * nothing can replace a transaction, so it is sent again as it was (unless it is to be taken back).
 */
import type { Logger } from '../../telemetry/logger.ts';
import type { NonceJournal } from '../ports.ts';
import type { FeeOracle } from './fee-oracle.ts';
import type { EvmMetrics } from './metrics.ts';
import type { Attempt, NonceSlot } from './nonce-slot.ts';
import { SELF_TRANSFER_GAS, type Clock } from './options.ts';
import type { EvmRpc } from './rpc-client.ts';
import { broadcast } from './send-verdict.ts';
import type { TxPayload, TxSigner } from './tx-signer.ts';

export interface ReplacerDeps {
  readonly rpc: EvmRpc;
  readonly signer: TxSigner;
  readonly fees: FeeOracle;
  readonly journal: NonceJournal;
  readonly clock: Pick<Clock, 'now'>;
  readonly metrics: EvmMetrics | null;
  readonly logger: Logger;
}

/** A placement signed before a restart, or a placement or cancellation a reorganisation dropped: taken back. */
export function isTakenBack(slot: NonceSlot): boolean {
  if (slot.cancelling) return false;
  if (slot.command.orphaned === true) return slot.command.kind !== 'approve';
  return slot.command.restored && slot.command.kind === 'place';
}

export class NonceReplacer {
  readonly #deps: ReplacerDeps;
  readonly #replacing = new WeakSet<NonceSlot>();

  constructor(deps: ReplacerDeps) {
    this.#deps = deps;
  }

  /** Sends the nonce again with higher fees: the same payload (`bump`) or a zero-value self-transfer (`cancel`). */
  async replace(slot: NonceSlot, role: 'bump' | 'cancel'): Promise<void> {
    // The poll and a resync in the lane may both reach a slot; one replacement at a time.
    if (this.#replacing.has(slot)) return;
    this.#replacing.add(slot);
    try {
      await this.#replaceNow(slot, role);
    } finally {
      this.#replacing.delete(slot);
    }
  }

  async #replaceNow(slot: NonceSlot, role: 'bump' | 'cancel'): Promise<void> {
    const previous = slot.latest;
    const fees = await this.#deps.fees.bump(previous.signed.fees);
    if (fees === null) {
      // At the fee cap nothing can replace it; send it again in case the pool dropped it (unless it is to be
      // taken back: a stale placement from before a restart, or a command a reorganisation dropped), and wait.
      this.#deps.logger.warn(
        { ...slot.command.context, nonce: slot.nonce.toString() },
        'chain A transaction stuck at the fee cap; nothing can replace it',
      );
      if (!isTakenBack(slot)) await broadcast(this.#deps.rpc, previous.signed.raw);
      previous.sentAtMs = this.#deps.clock.now();
      return;
    }
    const cancelling = role === 'cancel' || previous.role === 'cancel';
    const payload: TxPayload = cancelling
      ? { to: this.#deps.signer.address, data: '0x', value: 0n, gasLimit: SELF_TRANSFER_GAS }
      : previous.signed.payload;
    const signed = this.#deps.signer.sign(payload, slot.nonce, fees);
    // Signing is deterministic: the same nonce, payload and fees give a transaction already sent.
    if (slot.hashes.includes(signed.hash)) return;
    const first = slot.attempts[0] as Attempt;
    this.#deps.journal.recordSigned({
      txHash: signed.hash,
      chain: 'evm',
      wallet: this.#deps.signer.address,
      source: this.#deps.signer.address,
      sequence: slot.nonce,
      kind: cancelling ? 'noop' : 'replace',
      clientOrderId: slot.command.clientOrderId,
      raw: signed.raw,
    });
    const r = await broadcast(this.#deps.rpc, signed.raw);
    const log = {
      ...slot.command.context,
      nonce: slot.nonce.toString(),
      replaces: previous.signed.hash,
      txHash: signed.hash,
      maxFeePerGas: fees.maxFeePerGas.toString(),
    };
    if (r.kind === 'sent' || r.kind === 'known' || r.kind === 'uncertain') {
      slot.attempts.push({ signed, role: cancelling ? 'cancel' : 'bump', sentAtMs: this.#deps.clock.now() });
      slot.uncertain = r.kind === 'uncertain';
      if (r.kind !== 'uncertain') this.#deps.journal.mark(signed.hash, 'sent');
      this.#deps.metrics?.replacements.inc({ reason: cancelling ? 'cancel' : 'fee_bump' });
      this.#deps.logger.warn(
        log,
        cancelling
          ? `chain A nonce cancelled with a self-transfer (first ${first.signed.hash})`
          : 'chain A transaction replaced with higher fees',
      );
      return;
    }
    // Refused: the nonce was mined meanwhile (the next poll settles it) or the node wants more; try again later.
    this.#deps.journal.mark(signed.hash, 'dropped');
    this.#deps.logger.warn(
      { ...log, refusal: r.kind, message: 'message' in r ? r.message : '' },
      'chain A replacement refused by the node',
    );
  }
}
