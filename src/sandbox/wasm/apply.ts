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

/** What the operations of one transaction produced: their outcomes and what its contract call left behind. */
interface OperationsRun {
  readonly outcomes: OpOutcome[];
  readonly diagnostics: xdr.DiagnosticEventWire[];
  /** Contract events of the last successful call. */
  events: readonly EmittedEvent[];
  returnValue: ScVal | null;
  error: ScErrorWire | null;
  call: AppliedTx['call'];
}

/** The ledger the transaction is applied in. */
interface LedgerAt {
  readonly world: World;
  readonly ledgerSeq: number;
  readonly closeTime: bigint;
}

/** Charges the fee (at most the minimum) and bumps the sequence number; the changes are the meta's `txChangesBefore`. */
function chargeFee(world: World, parsed: ParsedTx, ledgerSeq: number) {
  const account = world.accounts.get(parsed.source) as AccountState;
  const before = accountEntry(account);
  const fee = minimumFee(parsed) < parsed.fee ? minimumFee(parsed) : parsed.fee;
  account.balance -= fee;
  account.seqNum = parsed.seqNum;
  account.lastModified = ledgerSeq;
  const feeChanges: xdr.LedgerEntryChangeWire[] = [
    { type: 3, state: before },
    { type: 1, updated: accountEntry(account) },
  ];
  return { fee, feeChanges };
}

/** An invoke-host-function operation: the contract call, with the transaction's authorization entries enforced. */
function invokeContract(at: LedgerAt, run: OperationsRun, source: string, op: xdr.InvokeHostFunctionOpWire): OpOutcome {
  const hostFunction = op.hostFunction;
  if (hostFunction.type !== 0) return { ok: false, result: { code: -3 }, changes: [] };
  const invoked = hostFunction.invokeContract;
  const call = {
    contract: fromScAddress(invoked.contractAddress),
    fn: invoked.functionName.toString(),
    args: invoked.args,
  };
  run.call = call;
  const out = runInvocation({ ...at, auth: new EnforcingAuth(op.auth) }, { source, ...call });
  if (!out.ok) {
    run.error = out.error;
    run.diagnostics.push(errorEvent(call.contract, out.error, out.message));
    return { ok: false, result: { code: 0, tr: { type: 24, invokeHostFunctionResult: { code: -2 } } }, changes: [] };
  }
  run.events = out.events;
  run.returnValue = out.value;
  return {
    ok: true,
    result: {
      code: 0,
      tr: { type: 24, invokeHostFunctionResult: { code: 0, success: sha256(xdr.ScVal.schema.encode(out.value)) } },
    },
    changes: [],
  };
}

/** Runs every operation against the journal; an operation of a kind the emulator does not support fails. */
function runOperations(at: LedgerAt, parsed: ParsedTx, journal: Journal): OperationsRun {
  const { world, ledgerSeq } = at;
  const run: OperationsRun = { outcomes: [], diagnostics: [], events: [], returnValue: null, error: null, call: null };
  for (const op of parsed.tx.operations) {
    const opSource = op.sourceAccount === null ? parsed.source : muxedToAccount(op.sourceAccount);
    const body = op.body;
    if (body.type === 24) run.outcomes.push(invokeContract(at, run, opSource, body.invokeHostFunctionOp));
    else if (body.type === 0)
      run.outcomes.push(createAccount(world, journal, opSource, body.createAccountOp, ledgerSeq));
    else if (body.type === 1) run.outcomes.push(payNative(world, journal, opSource, body.paymentOp, ledgerSeq));
    else run.outcomes.push({ ok: false, result: { code: -3 }, changes: [] });
  }
  return run;
}

/** TransactionMeta v4: the fee changes, each operation's changes and events (none on failure), the return value. */
function transactionMeta(
  parsed: ParsedTx,
  run: OperationsRun,
  feeChanges: xdr.LedgerEntryChangeWire[],
  success: boolean,
): xdr.TransactionMetaWire {
  return {
    v: 4,
    v4: {
      ext: { v: 0 },
      txChangesBefore: feeChanges,
      operations: run.outcomes.map((outcome) => ({
        ext: { v: 0 },
        changes: success ? outcome.changes : [],
        events: success ? run.events.map(contractEventWire) : [],
      })),
      txChangesAfter: [],
      sorobanMeta: parsed.soroban === null ? null : { ext: { v: 0 }, returnValue: run.returnValue },
      events: [],
      diagnosticEvents: run.diagnostics,
    },
  };
}

export function applyTransaction(
  world: World,
  parsed: ParsedTx,
  ledgerSeq: number,
  closeTime: bigint,
  order: number,
): AppliedTx {
  const { fee, feeChanges } = chargeFee(world, parsed, ledgerSeq);
  const journal = new Journal();
  const run = runOperations({ world, ledgerSeq, closeTime }, parsed, journal);
  const success = run.outcomes.every((outcome) => outcome.ok);
  if (success) journal.commit();
  else journal.rollback();

  const results = run.outcomes.map((outcome) => outcome.result);
  const result: xdr.TransactionResultWire = {
    feeCharged: fee,
    result: success ? { code: TX.success, results } : { code: TX.failed, results },
    ext: { v: 0 },
  };
  const meta = transactionMeta(parsed, run, feeChanges, success);
  return {
    hash: parsed.hash,
    ledger: ledgerSeq,
    applicationOrder: order,
    closeTime,
    success,
    source: parsed.source,
    envelopeB64: parsed.envelopeB64,
    resultB64: Buffer.from(xdr.TransactionResult.schema.encode(result)).toString('base64'),
    metaB64: Buffer.from(xdr.TransactionMeta.schema.encode(meta)).toString('base64'),
    events: success ? run.events : [],
    diagnosticB64: run.diagnostics.map(diagnosticB64),
    returnValue: run.returnValue,
    error: run.error,
    call: run.call,
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

function debit(journal: Journal, account: AccountState, amount: bigint, ledgerSeq: number): void {
  const { balance, lastModified } = account;
  journal.record(() => {
    account.balance = balance;
    account.lastModified = lastModified;
  });
  account.balance -= amount;
  account.lastModified = ledgerSeq;
}
