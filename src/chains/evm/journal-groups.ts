/**
 * The journal's records at one nonce read back as a command and its attempts: after a restart (the
 * unsettled nonces) and after a reorganisation (a nonce mined, then dropped). A nonce may hold several
 * commands when it was handed out again after a reorganisation; each command's record comes first, then its
 * replacements.
 */
import type { TxRecord, TxStatus } from '../ports.ts';
import { NonceSlot, type Attempt } from './nonce-slot.ts';
import type { TxKind } from './options.ts';
import { decodeSigned } from './tx-signer.ts';

const MINED: ReadonlySet<TxStatus> = new Set(['included', 'failed']);

/** Whether the chain mined the record's transaction (it may since have been dropped by a reorganisation). */
export function wasMined(record: TxRecord): boolean {
  return MINED.has(record.status);
}

/**
 * The records of the one command at a nonce that was mined: the command's own record and its replacements
 * (the nonce may have been handed out again to a later command after a reorganisation). Null when none was.
 */
export function minedGroup(atNonce: readonly TxRecord[]): TxRecord[] | null {
  return commandGroups(atNonce).find((g) => g.some(wasMined)) ?? null;
}

/** Records at one nonce, in journal order, split by command: a command's record, then its replacements. */
export function commandGroups(atNonce: readonly TxRecord[]): TxRecord[][] {
  const groups: TxRecord[][] = [];
  for (const r of atNonce) {
    const last = groups.at(-1);
    if ((r.kind === 'replace' || r.kind === 'noop') && last !== undefined) last.push(r);
    else groups.push([r]);
  }
  return groups;
}

/** The command's own record of a group (records of one millisecond may come in any order). */
export function commandRecordOf(group: readonly TxRecord[]): TxRecord {
  return group.find((r) => r.kind !== 'replace' && r.kind !== 'noop') ?? (group[0] as TxRecord);
}

/** The kind of command a record was journalled for. */
export function commandKindOf(record: TxRecord): TxKind {
  return record.kind === 'cancel' || record.kind === 'approve' ? record.kind : 'place';
}

/**
 * A group's transactions as attempts: the command's own first, then its replacements by rising fee (every
 * replacement pays more than the one before: fees give the order the clock may not).
 */
export function attemptsOf(group: readonly TxRecord[], command: TxRecord): Attempt[] {
  const later = group
    .filter((r) => r !== command)
    .map((r) => ({ r, signed: decodeSigned(r.raw) }))
    .toSorted((a, b) => (a.signed.fees.maxFeePerGas < b.signed.fees.maxFeePerGas ? -1 : 1));
  return [
    { signed: decodeSigned(command.raw), role: 'original', sentAtMs: command.updatedMs },
    ...later.map(({ r, signed }): Attempt => ({
      signed,
      role: r.kind === 'noop' ? 'cancel' : 'bump',
      sentAtMs: r.updatedMs,
    })),
  ];
}

/** A nonce the journal holds unsettled after a restart: followed again, its last broadcast in doubt. */
export function restoredSlot(nonce: bigint, group: readonly TxRecord[], deadlineMs: number): NonceSlot {
  const first = commandRecordOf(group);
  const slot = new NonceSlot(
    nonce,
    {
      kind: commandKindOf(first),
      clientOrderId: first.clientOrderId,
      context: { restoredFrom: first.txHash },
      restored: true,
    },
    deadlineMs,
  );
  slot.attempts.push(...attemptsOf(group, first));
  slot.uncertain = true;
  return slot;
}

/** A nonce whose mined transaction (`mined`) a reorganisation dropped: followed again as orphaned. */
export function orphanedSlot(
  nonce: bigint,
  group: readonly TxRecord[],
  mined: TxRecord,
  deadlineMs: number,
): NonceSlot {
  const first = commandRecordOf(group);
  const kind = commandKindOf(first);
  const slot = new NonceSlot(
    nonce,
    {
      kind,
      clientOrderId: first.clientOrderId,
      context: { orphanedFrom: mined.txHash, clientOrderId: first.clientOrderId?.toString() ?? null },
      restored: false,
      orphaned: true,
    },
    deadlineMs,
  );
  slot.attempts.push(...attemptsOf(group, first));
  // An approval, or a self-transfer that had already taken the nonce, is sent again as it was; anything
  // else gets its nonce taken back at the next poll.
  slot.uncertain = kind === 'approve' || slot.cancelling;
  return slot;
}
