/**
 * Why a chain B transaction did not do what it was sent for, as a typed error: the simulation's error text
 * (`Error(Contract, #n)` is a contract code, any other `Error(Type, Code)` the host's refusal), the node's
 * admission result code (`txBAD_SEQ`, `txTOO_LATE`...), and a failed transaction's diagnostic events
 * (`["error", Error(..)]`) or, when the node keeps none, its operation result.
 */
import { xdr } from '@stellar/stellar-sdk';
import { describeScError } from '../../core/encoding/sc-error.ts';
import { DltError } from '../../core/errors.ts';
import { fromWasmContractCode } from '../../core/venue-errors.ts';

/** Transaction result codes (TransactionResultCode) by number, in the network's spelling. */
const TX_CODES: Readonly<Record<number, string>> = {
  1: 'txFEE_BUMP_INNER_SUCCESS',
  0: 'txSUCCESS',
  [-1]: 'txFAILED',
  [-2]: 'txTOO_EARLY',
  [-3]: 'txTOO_LATE',
  [-4]: 'txMISSING_OPERATION',
  [-5]: 'txBAD_SEQ',
  [-6]: 'txBAD_AUTH',
  [-7]: 'txINSUFFICIENT_BALANCE',
  [-8]: 'txNO_ACCOUNT',
  [-9]: 'txINSUFFICIENT_FEE',
  [-10]: 'txBAD_AUTH_EXTRA',
  [-11]: 'txINTERNAL_ERROR',
  [-12]: 'txNOT_SUPPORTED',
  [-13]: 'txFEE_BUMP_INNER_FAILED',
  [-14]: 'txBAD_SPONSORSHIP',
  [-15]: 'txBAD_MIN_SEQ_AGE_OR_GAP',
  [-16]: 'txMALFORMED',
  [-17]: 'txSOROBAN_INVALID',
};

const HOST_FN_CODES: Readonly<Record<number, string>> = {
  [-1]: 'MALFORMED',
  [-2]: 'TRAPPED',
  [-3]: 'RESOURCE_LIMIT_EXCEEDED',
  [-4]: 'ENTRY_ARCHIVED',
  [-5]: 'INSUFFICIENT_REFUNDABLE_FEE',
};

/** The admission result code of a `sendTransaction` ERROR, by name; `unknown` when it does not decode. */
export function sendErrorName(errorResultXdr: string | null): string {
  if (errorResultXdr === null) return 'unknown';
  try {
    const r = xdr.TransactionResult.schema.decode(Buffer.from(errorResultXdr, 'base64'));
    return TX_CODES[r.result.code] ?? `tx code ${r.result.code}`;
  } catch {
    return 'unknown';
  }
}

/** The error of an envelope the node refused with admission result `name`: it never applied. */
export function errorFromRefusal(name: string, context: Record<string, unknown>, source: string): DltError {
  if (name === 'txTOO_LATE')
    return new DltError('E_CHAIN_TX_EXPIRED', 'node refused the transaction as too late; it never applied', {
      details: { ...context, result: name },
    });
  return new DltError('E_CHAIN_TX_REFUSED', `node refused the transaction: ${name}`, {
    details: { ...context, result: name, source },
  });
}

/** The typed error of a simulation's `error` string. */
export function errorFromSimulation(text: string, context: Record<string, unknown>): DltError {
  const contract = /Error\(Contract, #(\d+)\)/.exec(text);
  if (contract !== null) return fromWasmContractCode(Number(contract[1]), context);
  const host = /Error\((\w+), (\w+)\)/.exec(text);
  const firstLine = text.split('\n')[0]?.slice(0, 300) ?? '';
  if (host !== null) {
    return new DltError('E_VENUE_HOST_ERROR', `simulation refused: Error(${host[1]}, ${host[2]})`, {
      details: { ...context, hostError: `${host[1]}, ${host[2]}`, text: firstLine },
    });
  }
  return new DltError('E_VENUE_HOST_ERROR', `simulation refused: ${firstLine}`, {
    details: { ...context, text: firstLine },
  });
}

/** `["error", Error(..)]` diagnostic events, newest meaning first: a contract error wins over host errors. */
function errorOf(events: readonly xdr.DiagnosticEventWire[]): xdr.ScErrorWire | null {
  let host: xdr.ScErrorWire | null = null;
  for (const d of events) {
    const body = d.event.body;
    if (body.v !== 0) continue;
    const [name, err] = body.v0.topics;
    if (name?.type !== 15 || name.sym.toString() !== 'error' || err?.type !== 2) continue;
    if (err.error.type === 0) return err.error;
    host ??= err.error;
  }
  return host;
}

function diagnosticsOf(reply: {
  diagnosticEventsXdr: readonly string[];
  resultMetaXdr: string | null;
}): xdr.DiagnosticEventWire[] {
  const out: xdr.DiagnosticEventWire[] = [];
  for (const b64 of reply.diagnosticEventsXdr) {
    try {
      out.push(xdr.DiagnosticEvent.schema.decode(Buffer.from(b64, 'base64')));
    } catch {
      // An undecodable diagnostic says nothing; the result code below still does.
    }
  }
  if (reply.resultMetaXdr !== null) {
    try {
      const meta = xdr.TransactionMeta.schema.decode(Buffer.from(reply.resultMetaXdr, 'base64'));
      if (meta.v === 4) out.push(...meta.v4.diagnosticEvents);
      if (meta.v === 3 && meta.v3.sorobanMeta !== null) out.push(...meta.v3.sorobanMeta.diagnosticEvents);
    } catch {
      // As above.
    }
  }
  return out;
}

/** The fee a transaction was charged (stroops), from its result; null when it cannot be read. */
export function feeChargedOf(resultXdr: string | null): bigint | null {
  if (resultXdr === null) return null;
  try {
    return BigInt(
      String(
        (
          xdr.TransactionResult.schema.decode(Buffer.from(resultXdr, 'base64')) as {
            feeCharged: bigint | number | string;
          }
        ).feeCharged,
      ),
    );
  } catch {
    return null;
  }
}

function hostFunctionResult(resultXdr: string | null): string | null {
  if (resultXdr === null) return null;
  try {
    const r = xdr.TransactionResult.schema.decode(Buffer.from(resultXdr, 'base64'));
    const res = r.result as { code: number; results?: xdr.OperationResultWire[] };
    const op = res.results?.[0];
    if (op?.code === 0 && op.tr.type === 24)
      return HOST_FN_CODES[op.tr.invokeHostFunctionResult.code] ?? `code ${op.tr.invokeHostFunctionResult.code}`;
    return TX_CODES[res.code] ?? `tx code ${res.code}`;
  } catch {
    return null;
  }
}

/** The typed error of a transaction that was included and failed (its fee and sequence number are spent). */
export function errorFromFailedTx(
  reply: { diagnosticEventsXdr: readonly string[]; resultMetaXdr: string | null; resultXdr: string | null },
  context: Record<string, unknown>,
): DltError {
  const err = errorOf(diagnosticsOf(reply));
  if (err?.type === 0) return fromWasmContractCode(err.contractCode, context);
  if (err !== null)
    return new DltError('E_VENUE_HOST_ERROR', `transaction failed: ${describeScError(err)}`, {
      details: { ...context, hostError: describeScError(err) },
    });
  const result = hostFunctionResult(reply.resultXdr);
  return new DltError(
    'E_VENUE_CONTRACT_ERROR',
    `transaction failed without a diagnostic event (${result ?? 'result unreadable'})`,
    {
      details: { ...context, result },
    },
  );
}
