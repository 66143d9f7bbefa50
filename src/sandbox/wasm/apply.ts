/**
 * Applying a queued transaction when its ledger closes: the fee is charged and the sequence number bumped
 * whatever happens next (as on the network), then the operations run: a contract invocation enforcing the
 * transaction's authorization entries, or the two classic operations the emulator supports (create account,
 * native payment). The result and TransactionMeta (v4, return value in `sorobanMeta`) are real XDR.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { EnforcingAuth } from './auth.ts';
import { sha256 } from './crypto.ts';
import type { ScErrorWire } from './host-error.ts';
import type { AccountState, EmittedEvent, World } from './host.ts';
import { contractEventWire, diagnosticB64, errorEvent, runInvocation } from './invoke.ts';
import { Journal } from './journal.ts';
import { accountEntry } from './ledger-entries.ts';
import { fromScAddress, type ScVal } from './scval.ts';
import { minimumFee, muxedToAccount, TX, type ParsedTx } from './tx-check.ts';

/** Stroops in one lumen; a new account needs at least the base reserve of 1 XLM. */
const MIN_STARTING_BALANCE = 10_000_000n;

export interface AppliedTx {
  readonly hash: string;
  readonly ledger: number;
  readonly applicationOrder: number;
  readonly closeTime: bigint;
  readonly success: boolean;
  readonly source: string;
  readonly envelopeB64: string;
  readonly resultB64: string;
  readonly metaB64: string;
  /** Contract events of a successful call (none when it failed). */
  readonly events: readonly EmittedEvent[];
  readonly diagnosticB64: readonly string[];
  readonly returnValue: ScVal | null;
  readonly error: ScErrorWire | null;
  /** The contract call, when the transaction was one. */
  readonly call: { readonly contract: string; readonly fn: string; readonly args: readonly ScVal[] } | null;
}

interface OpOutcome {
  readonly ok: boolean;
  readonly result: xdr.OperationResultWire;
  readonly changes: xdr.LedgerEntryChangeWire[];
}

export function applyTransaction(
  world: World,
  p: ParsedTx,
  ledgerSeq: number,
  closeTime: bigint,
  order: number,
): AppliedTx {
  const account = world.accounts.get(p.source) as AccountState;
  const before = accountEntry(account);
  const fee = minimumFee(p) < p.fee ? minimumFee(p) : p.fee;
  account.balance -= fee;
  account.seqNum = p.seqNum;
  account.lastModified = ledgerSeq;
  const feeChanges: xdr.LedgerEntryChangeWire[] = [
    { type: 3, state: before },
    { type: 1, updated: accountEntry(account) },
  ];

  let events: readonly EmittedEvent[] = [];
  let returnValue: ScVal | null = null;
  let error: ScErrorWire | null = null;
  const diagnostics: xdr.DiagnosticEventWire[] = [];
  let call: AppliedTx['call'] = null;
  const journal = new Journal();
  const outcomes: OpOutcome[] = [];
  for (const op of p.tx.operations) {
    const opSource = op.sourceAccount === null ? p.source : muxedToAccount(op.sourceAccount);
    const body = op.body;
    if (body.type === 24) {
      const hf = body.invokeHostFunctionOp.hostFunction;
      if (hf.type !== 0) {
        outcomes.push({ ok: false, result: { code: -3 }, changes: [] });
        continue;
      }
      const c = hf.invokeContract;
      call = { contract: fromScAddress(c.contractAddress), fn: c.functionName.toString(), args: c.args };
      const out = runInvocation(
        { world, ledgerSeq, closeTime, auth: new EnforcingAuth(body.invokeHostFunctionOp.auth) },
        { source: opSource, ...call },
      );
      if (out.ok) {
        events = out.events;
        returnValue = out.value;
        outcomes.push({
          ok: true,
          result: {
            code: 0,
            tr: {
              type: 24,
              invokeHostFunctionResult: { code: 0, success: sha256(xdr.ScVal.schema.encode(out.value)) },
            },
          },
          changes: [],
        });
      } else {
        error = out.error;
        diagnostics.push(errorEvent(call.contract, out.error, out.message));
        outcomes.push({
          ok: false,
          result: { code: 0, tr: { type: 24, invokeHostFunctionResult: { code: -2 } } },
          changes: [],
        });
      }
    } else if (body.type === 0) outcomes.push(createAccount(world, journal, opSource, body.createAccountOp, ledgerSeq));
    else if (body.type === 1) outcomes.push(payNative(world, journal, opSource, body.paymentOp, ledgerSeq));
    else outcomes.push({ ok: false, result: { code: -3 }, changes: [] });
  }
  const success = outcomes.every((o) => o.ok);
  if (success) journal.commit();
  else journal.rollback();

  const result: xdr.TransactionResultWire = {
    feeCharged: fee,
    result: success
      ? { code: TX.success, results: outcomes.map((o) => o.result) }
      : { code: TX.failed, results: outcomes.map((o) => o.result) },
    ext: { v: 0 },
  };
  const meta: xdr.TransactionMetaWire = {
    v: 4,
    v4: {
      ext: { v: 0 },
      txChangesBefore: feeChanges,
      operations: outcomes.map((o) => ({
        ext: { v: 0 },
        changes: success ? o.changes : [],
        events: success ? events.map(contractEventWire) : [],
      })),
      txChangesAfter: [],
      sorobanMeta: p.soroban === null ? null : { ext: { v: 0 }, returnValue },
      events: [],
      diagnosticEvents: diagnostics,
    },
  };
  return {
    hash: p.hash,
    ledger: ledgerSeq,
    applicationOrder: order,
    closeTime,
    success,
    source: p.source,
    envelopeB64: p.envelopeB64,
    resultB64: Buffer.from(xdr.TransactionResult.schema.encode(result)).toString('base64'),
    metaB64: Buffer.from(xdr.TransactionMeta.schema.encode(meta)).toString('base64'),
    events: success ? events : [],
    diagnosticB64: diagnostics.map(diagnosticB64),
    returnValue,
    error,
    call,
  };
}

function createFailed(code: number): OpOutcome {
  return {
    ok: false,
    result: { code: 0, tr: { type: 0, createAccountResult: { code } } } as xdr.OperationResultWire,
    changes: [],
  };
}

function paymentFailed(code: number): OpOutcome {
  return {
    ok: false,
    result: { code: 0, tr: { type: 1, paymentResult: { code } } } as xdr.OperationResultWire,
    changes: [],
  };
}

function createAccount(
  world: World,
  journal: Journal,
  source: string,
  op: xdr.CreateAccountOpWire,
  ledgerSeq: number,
): OpOutcome {
  const dest = StrKey.encodeEd25519PublicKey(op.destination.ed25519);
  const from = world.accounts.get(source);
  if (from === undefined) return { ok: false, result: { code: -2 }, changes: [] };
  if (op.startingBalance < MIN_STARTING_BALANCE) return createFailed(-3);
  if (world.accounts.has(dest)) return createFailed(-4);
  if (from.balance < op.startingBalance) return createFailed(-2);
  debit(journal, from, op.startingBalance, ledgerSeq);
  const created: AccountState = {
    id: dest,
    balance: op.startingBalance,
    seqNum: BigInt(ledgerSeq) << 32n,
    lastModified: ledgerSeq,
  };
  journal.set(world.accounts, dest, created);
  return {
    ok: true,
    result: { code: 0, tr: { type: 0, createAccountResult: { code: 0 } } } as xdr.OperationResultWire,
    changes: [{ type: 0, created: accountEntry(created) }],
  };
}

function payNative(
  world: World,
  journal: Journal,
  source: string,
  op: xdr.PaymentOpWire,
  ledgerSeq: number,
): OpOutcome {
  if (op.asset.type !== 0) return { ok: false, result: { code: -3 }, changes: [] };
  const from = world.accounts.get(source);
  const to = world.accounts.get(muxedToAccount(op.destination));
  if (from === undefined) return { ok: false, result: { code: -2 }, changes: [] };
  if (to === undefined) return paymentFailed(-5);
  if (op.amount <= 0n) return paymentFailed(-1);
  if (from.balance < op.amount) return paymentFailed(-2);
  debit(journal, from, op.amount, ledgerSeq);
  debit(journal, to, -op.amount, ledgerSeq);
  return {
    ok: true,
    result: { code: 0, tr: { type: 1, paymentResult: { code: 0 } } } as xdr.OperationResultWire,
    changes: [],
  };
}

function debit(journal: Journal, a: AccountState, amount: bigint, ledgerSeq: number): void {
  const { balance, lastModified } = a;
  journal.record(() => {
    a.balance = balance;
    a.lastModified = lastModified;
  });
  a.balance -= amount;
  a.lastModified = ledgerSeq;
}
