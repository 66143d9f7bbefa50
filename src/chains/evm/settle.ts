/**
 * The fate of an earlier transaction, also after a restart. A nonce still in flight answers when the chain
 * decides. Otherwise the journal names every transaction signed at that nonce for the same command (the
 * original, its replacements, the self-transfer that cancelled it): whichever has a receipt is the fate; when
 * none has one and the nonce is used, another transaction took it (a later command of ours holding the nonce
 * decides first); when the nonce is not used, the fate is still unknown, unless the command was mined once and
 * a reorganisation dropped it: then the watcher takes the nonce back and its fate is awaited.
 */
import { DltError } from '../../core/errors.ts';
import type { NonceJournal, TxRecord } from '../ports.ts';
import type { Outcome } from '../types.ts';
import type { MinedCommand } from './receipt-outcome.ts';
import type { Receipt, EvmRpc } from './rpc-client.ts';
import type { TxKind } from './options.ts';
import { decodeSigned } from './tx-signer.ts';
import { commandGroups } from './journal-groups.ts';
import type { TxWatcher } from './tx-watcher.ts';

export interface SettleDeps {
  readonly rpc: EvmRpc;
  readonly journal: NonceJournal;
  readonly watcher: TxWatcher;
  readonly wallet: string;
  readonly outcomeOf: (receipt: Receipt, command: MinedCommand) => Promise<Outcome>;
  /** Clock time after which a nonce still in flight is answered with `unknown`. */
  readonly deadlineMs: number;
}

const kindOf = (r: TxRecord): TxKind => (r.kind === 'cancel' || r.kind === 'approve' ? r.kind : 'place');

export async function settleTransaction(txHash: string, d: SettleDeps): Promise<Outcome> {
  const hash = txHash.toLowerCase();
  const inFlight = d.watcher.slotOf(hash);
  if (inFlight !== undefined) return inFlight.wait(d.deadlineMs);

  const record = d.journal.get(hash);
  if (record === undefined) {
    return { kind: 'unknown', txHash: hash, reason: 'the transaction is not in this wallet journal' };
  }
  const siblings = commandGroups(d.journal.atSequence('evm', record.source, record.sequence)).find((g) =>
    g.some((r) => r.txHash === hash),
  ) ?? [record];
  const original = siblings.find((r) => r.kind !== 'replace' && r.kind !== 'noop') ?? record;
  const command: Omit<MinedCommand, 'cancelledBySelfTransfer'> = {
    kind: kindOf(original),
    nonce: record.sequence,
    payload: decodeSigned(original.raw).payload,
    context: { restoredFrom: original.txHash, clientOrderId: original.clientOrderId?.toString() ?? null },
  };
  for (const r of siblings.toReversed()) {
    const receipt = await d.rpc.receipt(r.txHash);
    if (receipt !== null) return d.outcomeOf(receipt, { ...command, cancelledBySelfTransfer: r.kind === 'noop' });
  }
  const slot = d.watcher.slotAt(record.sequence);
  if (slot !== undefined) {
    if (siblings.some((r) => slot.hashes.includes(r.txHash))) return slot.wait(d.deadlineMs);
    // A later command of ours was given the nonce: whichever of the two the chain mines decides.
    await slot.wait(d.deadlineMs);
    if (!slot.settled)
      return {
        kind: 'unknown',
        txHash: hash,
        reason: `nonce ${record.sequence} is held by another transaction of this bot`,
      };
    return settleTransaction(txHash, d);
  }
  const mined = await d.rpc.transactionCount(d.wallet, 'latest');
  if (mined > record.sequence) {
    return {
      kind: 'rejected',
      txHash: hash,
      included: false,
      error: new DltError(
        'E_CHAIN_TX_EXPIRED',
        `nonce ${record.sequence} was used by a transaction this bot did not send; ours never applied`,
        {
          details: { reason: 'superseded', nonce: record.sequence.toString(), hashes: siblings.map((s) => s.txHash) },
        },
      ),
    };
  }
  if (siblings.some((r) => r.status === 'included' || r.status === 'failed')) {
    // Mined once, and no longer: a reorganisation dropped it.
    await d.watcher.reclaimOrphans(record.sequence + 1n);
    const orphan = d.watcher.slotAt(record.sequence);
    if (orphan !== undefined) return orphan.wait(d.deadlineMs);
  }
  return { kind: 'unknown', txHash: hash, reason: `nonce ${record.sequence} is not mined and not in flight` };
}
