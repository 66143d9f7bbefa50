/**
 * Reading why a transaction did not do its work: simulation error text, the node's admission result code,
 * and a failed transaction's diagnostic events or operation result.
 */
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import {
  errorFromFailedTx,
  errorFromSimulation,
  feeChargedOf,
  sendErrorName,
} from '../../../../src/chains/wasm/tx-result.ts';
import { scv } from '../../../../src/chains/wasm/scval.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function diagnostic(error: xdr.ScErrorWire): string {
  return b64(
    xdr.DiagnosticEvent.schema.encode({
      inSuccessfulContractCall: false,
      event: {
        ext: { v: 0 },
        contractId: null,
        type: 2,
        body: { v: 0, v0: { topics: [scv.sym('error'), { type: 2, error }], data: scv.u32(0) } },
      },
    }),
  );
}

function result(code: number, hostFnCode?: number): string {
  const r = {
    feeCharged: 100n,
    result:
      hostFnCode === undefined
        ? { code }
        : { code, results: [{ code: 0, tr: { type: 24, invokeHostFunctionResult: { code: hostFnCode } } }] },
    ext: { v: 0 },
  } as xdr.TransactionResultWire;
  return b64(xdr.TransactionResult.schema.encode(r));
}

describe('simulation errors', () => {
  it('maps a contract code to its typed error and keeps host errors apart', () => {
    expect(errorFromSimulation('HostError: Error(Contract, #1024)\n\nEvent log ...', { pair: 'p' })).toMatchObject({
      code: 'E_VENUE_OFF_TICK',
      details: { pair: 'p', wasmCode: 1024 },
    });
    expect(errorFromSimulation('HostError: Error(Contract, #77)', {})).toMatchObject({
      code: 'E_VENUE_CONTRACT_ERROR',
      details: { wasmCode: 77 },
    });
    expect(errorFromSimulation('HostError: Error(Auth, InvalidAction)', {})).toMatchObject({
      code: 'E_VENUE_HOST_ERROR',
      details: { hostError: 'Auth, InvalidAction' },
    });
    expect(errorFromSimulation('account not found', {})).toMatchObject({
      code: 'E_VENUE_HOST_ERROR',
      details: { text: 'account not found' },
    });
  });
});

describe('admission results', () => {
  it('names the result code of a refused transaction', () => {
    expect([result(-5), result(-3), result(-9), 'garbage', null].map((r) => sendErrorName(r))).toEqual([
      'txBAD_SEQ',
      'txTOO_LATE',
      'txINSUFFICIENT_FEE',
      'unknown',
      'unknown',
    ]);
  });
});

describe('failed transactions', () => {
  it('takes the contract code of the diagnostic error event over host errors', () => {
    const reply = {
      diagnosticEventsXdr: [
        diagnostic({ type: 9, code: 6 } as xdr.ScErrorWire),
        diagnostic({ type: 0, contractCode: 8 }),
      ],
      resultMetaXdr: null,
      resultXdr: result(-1, -2),
    };
    expect(errorFromFailedTx(reply, {})).toMatchObject({ code: 'E_VENUE_ORDER_NOT_FOUND' });
    expect(
      errorFromFailedTx({ ...reply, diagnosticEventsXdr: [diagnostic({ type: 9, code: 6 } as xdr.ScErrorWire)] }, {}),
    ).toMatchObject({
      code: 'E_VENUE_HOST_ERROR',
      details: { hostError: 'Error(Auth, InvalidAction)' },
    });
  });

  it('without diagnostics, says what the operation result says', () => {
    expect(
      errorFromFailedTx({ diagnosticEventsXdr: [], resultMetaXdr: null, resultXdr: result(-1, -2) }, {}),
    ).toMatchObject({ code: 'E_VENUE_CONTRACT_ERROR', details: { result: 'TRAPPED' } });
    expect(
      errorFromFailedTx({ diagnosticEventsXdr: ['???'], resultMetaXdr: 'AAAA', resultXdr: null }, {}),
    ).toMatchObject({ code: 'E_VENUE_CONTRACT_ERROR', details: { result: null } });
  });
});

describe('fees', () => {
  it('reads the fee a transaction was charged from its result', () => {
    expect([feeChargedOf(result(-1, -2)), feeChargedOf(result(-5))]).toEqual([100n, 100n]);
    expect(feeChargedOf('not xdr')).toBeNull();
  });
});
