/**
 * simulateTransaction: runs the transaction's one contract call against the current state as the next ledger
 * would, then rolls everything back. In record mode (no entries in the transaction) it returns the
 * authorization entries to sign; in enforce mode it checks the entries it was given. The answer has the
 * server's shape: `transactionData` with the footprint the call touched and the resources, `minResourceFee`,
 * `results[0].auth` and `.xdr`, diagnostic `events`, or on failure the host's `error` string.
 */
import { xdr } from '@stellar/stellar-sdk';
import { EnforcingAuth, RecordingAuth } from './auth.ts';
import { estimateResources, resourceFeeFor } from './fees.ts';
import { Footprint, type AuthTracker, type World } from './host.ts';
import { contractEventWire, diagnosticB64, errorEvent, hostErrorText, runInvocation } from './invoke.ts';
import { fromScAddress, scValBase64 } from './scval.ts';
import { muxedToAccount } from './tx-check.ts';

export interface SimulationInput {
  readonly world: World;
  readonly tx: xdr.TransactionWire;
  readonly ledgerSeq: number;
  readonly closeTime: bigint;
  readonly latestLedger: number;
  readonly authMode: 'enforce' | 'record' | 'record_allow_nonroot' | undefined;
  /** Address credentials of the newer (CAP-71) kind, bound to the address. */
  readonly authV2: boolean;
  readonly randomNonce: () => bigint;
}

/** Thrown for a transaction simulation cannot take (the RPC answers invalid params). */
export class NotSimulatable extends Error {}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

export function simulate(input: SimulationInput): Record<string, unknown> {
  const { tx } = input;
  const [op] = tx.operations;
  if (tx.operations.length !== 1 || op === undefined)
    throw new NotSimulatable('transaction must contain exactly one operation');
  if (op.body.type !== 24) throw new NotSimulatable('transaction contains an operation that is not invokeHostFunction');
  const hf = op.body.invokeHostFunctionOp.hostFunction;
  if (hf.type !== 0) throw new NotSimulatable('only contract invocations are supported by this node');
  const given = op.body.invokeHostFunctionOp.auth;
  const enforce = input.authMode === 'enforce' || (input.authMode === undefined && given.length > 0);
  const recording = new RecordingAuth(input.randomNonce);
  const auth: AuthTracker = enforce ? new EnforcingAuth(given) : recording;
  const footprint = new Footprint();
  const source = op.sourceAccount === null ? muxedToAccount(tx.sourceAccount) : muxedToAccount(op.sourceAccount);
  const call = {
    source,
    contract: fromScAddress(hf.invokeContract.contractAddress),
    fn: hf.invokeContract.functionName.toString(),
    args: hf.invokeContract.args,
  };
  const out = runInvocation(
    { world: input.world, ledgerSeq: input.ledgerSeq, closeTime: input.closeTime, auth, footprint, dryRun: true },
    call,
  );
  if (!out.ok) {
    return {
      error: hostErrorText(call.contract, out.error, out.message),
      events: [diagnosticB64(errorEvent(call.contract, out.error, out.message))],
      latestLedger: input.latestLedger,
    };
  }
  const resources = estimateResources(footprint.split(), out.events.length);
  const fee = resourceFeeFor(resources);
  const data: xdr.SorobanTransactionDataWire = { ext: { v: 0 }, resources, resourceFee: fee };
  const entries = enforce
    ? given
    : recording
        .entries()
        .map((e) =>
          input.authV2 && e.credentials.type === 1
            ? { ...e, credentials: { type: 2 as const, addressV2: e.credentials.address } }
            : e,
        );
  return {
    transactionData: b64(xdr.SorobanTransactionData.schema.encode(data)),
    minResourceFee: fee.toString(),
    events: out.events.map((e) => diagnosticB64({ inSuccessfulContractCall: true, event: contractEventWire(e) })),
    results: [
      { auth: entries.map((e) => b64(xdr.SorobanAuthorizationEntry.schema.encode(e))), xdr: scValBase64(out.value) },
    ],
    cost: { cpuInsns: String(resources.instructions), memBytes: String(resources.instructions / 2) },
    latestLedger: input.latestLedger,
  };
}
