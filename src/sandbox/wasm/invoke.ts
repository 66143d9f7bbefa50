/**
 * One contract invocation as a unit of work, shared by transaction application, simulation and the
 * operator's control calls: it runs the root call in a fresh environment, keeps the state changes on
 * success and rolls every one of them back on failure (a failed call changes nothing and emits nothing).
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { describeScError } from '../../core/encoding/sc-error.ts';
import { scErrorOf, type ScErrorWire } from './host-error.ts';
import { invoke, type AuthTracker, type EmittedEvent, type Footprint, type World } from './host.ts';
import { Journal } from './journal.ts';
import { scv, type ScVal } from './scval.ts';

export interface InvocationRequest {
  readonly source: string;
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly ScVal[];
}

export interface InvocationContext {
  readonly world: World;
  readonly ledgerSeq: number;
  readonly closeTime: bigint;
  readonly auth: AuthTracker;
  readonly footprint?: Footprint | null;
  /** Simulation: always roll back, even on success. */
  readonly dryRun?: boolean;
}

export type InvocationOutcome =
  | { readonly ok: true; readonly value: ScVal; readonly events: readonly EmittedEvent[] }
  | {
      readonly ok: false;
      readonly error: ScErrorWire;
      readonly message: string;
      readonly events: readonly EmittedEvent[];
    };

export function runInvocation(ctx: InvocationContext, req: InvocationRequest): InvocationOutcome {
  const journal = new Journal();
  const events: EmittedEvent[] = [];
  const env = {
    world: ctx.world,
    ledgerSeq: ctx.ledgerSeq,
    closeTime: ctx.closeTime,
    source: req.source,
    journal,
    auth: ctx.auth,
    events,
    footprint: ctx.footprint ?? null,
  };
  try {
    const value = invoke(env, null, req.contract, req.fn, req.args);
    if (ctx.dryRun === true) journal.rollback();
    else journal.commit();
    return { ok: true, value, events };
  } catch (e) {
    journal.rollback();
    return { ok: false, error: scErrorOf(e), message: e instanceof Error ? e.message : String(e), events };
  }
}

export function contractEventWire(e: EmittedEvent): xdr.ContractEventWire {
  return {
    ext: { v: 0 },
    contractId: StrKey.decodeContract(e.contract),
    type: 1,
    body: { v: 0, v0: { topics: e.topics, data: e.data } },
  };
}

/** The host's diagnostic event for a failed call: topics `["error", Error(..)]`, data the message. */
export function errorEvent(contract: string, error: ScErrorWire, message: string): xdr.DiagnosticEventWire {
  return {
    inSuccessfulContractCall: false,
    event: {
      ext: { v: 0 },
      contractId: StrKey.isValidContract(contract) ? StrKey.decodeContract(contract) : null,
      type: 2,
      body: { v: 0, v0: { topics: [scv.sym('error'), { type: 2, error }], data: scv.str(message) } },
    },
  };
}

/** The simulation error string of the real server, which clients search for `Error(Contract, #n)`. */
export function hostErrorText(contract: string, error: ScErrorWire, message: string): string {
  const e = describeScError(error);
  return `HostError: ${e}\n\nEvent log (newest first):\n   0: [Diagnostic Event] contract:${contract}, topics:[error, ${e}], data:"${message.replaceAll('"', "'")}"\n`;
}

export function diagnosticB64(d: xdr.DiagnosticEventWire): string {
  return Buffer.from(xdr.DiagnosticEvent.schema.encode(d)).toString('base64');
}
