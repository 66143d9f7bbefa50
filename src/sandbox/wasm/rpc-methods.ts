/**
 * The Soroban RPC methods over the emulator, with the field names and string/number choices of the real
 * server (the SDK parses these answers) and its error codes for bad params.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import type { AppliedTx } from './apply.ts';
import { closeMetaXdr, hashHex, headerXdr, PROTOCOL_VERSION } from './chain.ts';
import type { WasmEmulator } from './emulator.ts';
import { RpcError } from './rpc-error.ts';
import { getEvents } from './rpc-events.ts';
import { NotSimulatable, simulate } from './simulate.ts';
import { UndecodableEnvelope } from './tx-check.ts';

type Json = Record<string, unknown>;
export type Handler = (emu: WasmEmulator, params: unknown, extra: RpcExtras) => Json;

export interface RpcExtras {
  readonly friendbotUrl?: string;
}

const MAX_LEDGER_KEYS = 200;

/** Fee percentiles: the emulator never surges, so every percentile is the base fee. */
function feeStats(count: number): Json {
  const p = Object.fromEntries(
    ['p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'].map((k) => [k, '100']),
  );
  return { max: '100', min: '100', mode: '100', ...p, transactionCount: String(count), ledgerCount: 50 };
}

function object(params: unknown): Json {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new RpcError(-32602, 'params must be an object');
  return params as Json;
}

function ledgerWindow(emu: WasmEmulator): Json {
  return {
    latestLedger: emu.latest.seq,
    latestLedgerCloseTime: emu.latest.closeTime.toString(),
    oldestLedger: emu.oldest.seq,
    oldestLedgerCloseTime: emu.oldest.closeTime.toString(),
  };
}

function transactionInfo(t: AppliedTx): Json {
  const info: Json = {
    txHash: t.hash,
    applicationOrder: t.applicationOrder,
    feeBump: false,
    envelopeXdr: t.envelopeB64,
    resultXdr: t.resultB64,
    resultMetaXdr: t.metaB64,
    ledger: t.ledger,
    createdAt: t.closeTime.toString(),
    events: {
      contractEventsXdr: [
        t.events.map((e) =>
          Buffer.from(
            xdr.ContractEvent.schema.encode({
              ext: { v: 0 },
              contractId: StrKey.decodeContract(e.contract),
              type: 1,
              body: { v: 0, v0: { topics: e.topics, data: e.data } },
            }),
          ).toString('base64'),
        ),
      ],
      transactionEventsXdr: [],
    },
  };
  if (t.diagnosticB64.length > 0) info.diagnosticEventsXdr = t.diagnosticB64;
  return info;
}

export const METHODS: Readonly<Record<string, Handler>> = {
  getHealth: (emu) => ({
    status: 'healthy',
    latestLedger: emu.latest.seq,
    oldestLedger: emu.oldest.seq,
    ledgerRetentionWindow: emu.retentionLedgers,
  }),
  getNetwork: (emu, _p, extra) => ({
    ...(extra.friendbotUrl === undefined ? {} : { friendbotUrl: extra.friendbotUrl }),
    passphrase: emu.passphrase,
    protocolVersion: PROTOCOL_VERSION,
  }),
  getVersionInfo: () => ({
    version: '23.0.0-dlt-mm-emulator',
    commitHash: '0000000000000000000000000000000000000000',
    buildTimestamp: '2026-01-01T00:00:00Z',
    captiveCoreVersion: 'dlt-mm emulated core',
    protocolVersion: PROTOCOL_VERSION,
  }),
  getLatestLedger: (emu) => {
    const l = emu.latest;
    return {
      id: hashHex(l.hash),
      sequence: l.seq,
      protocolVersion: PROTOCOL_VERSION,
      closeTime: l.closeTime.toString(),
      headerXdr: headerXdr(l),
      metadataXdr: closeMetaXdr(l),
    };
  },
  getLedgerEntries: (emu, params) => {
    const keys = object(params).keys;
    if (!Array.isArray(keys) || keys.length === 0) throw new RpcError(-32602, 'keys must be a non-empty array');
    if (keys.length > MAX_LEDGER_KEYS)
      throw new RpcError(-32602, `key count (${keys.length}) exceeds maximum supported (${MAX_LEDGER_KEYS})`);
    const entries: Json[] = [];
    keys.forEach((k, i) => {
      let key: xdr.LedgerKeyWire;
      try {
        key = xdr.LedgerKey.schema.decode(Buffer.from(String(k), 'base64'));
      } catch {
        throw new RpcError(-32602, `cannot unmarshal key value ${String(k)} at index ${i}`);
      }
      const found = emu.ledgerEntry(key);
      if (found === undefined) return;
      entries.push({
        key: k,
        xdr: Buffer.from(xdr.LedgerEntryData.schema.encode(found.data)).toString('base64'),
        lastModifiedLedgerSeq: found.lastModified,
        ...(found.liveUntil === undefined ? {} : { liveUntilLedgerSeq: found.liveUntil }),
      });
    });
    return { entries, latestLedger: emu.latest.seq };
  },
  simulateTransaction: (emu, params) => {
    const p = object(params);
    if (typeof p.transaction !== 'string') throw new RpcError(-32602, 'transaction must be a base64 string');
    const authMode = p.authMode === undefined || p.authMode === '' ? undefined : p.authMode;
    if (
      authMode !== undefined &&
      authMode !== 'enforce' &&
      authMode !== 'record' &&
      authMode !== 'record_allow_nonroot'
    ) {
      throw new RpcError(-32602, `invalid authMode: ${String(authMode)}`);
    }
    let env: xdr.TransactionEnvelopeWire;
    try {
      env = xdr.TransactionEnvelope.schema.decode(Buffer.from(p.transaction, 'base64'));
    } catch {
      throw new RpcError(-32602, 'Could not unmarshal transaction');
    }
    if (env.type !== 2) throw new RpcError(-32602, 'only v1 transaction envelopes can be simulated');
    try {
      return simulate({
        world: emu.world,
        tx: env.v1.tx,
        ledgerSeq: emu.latest.seq + 1,
        closeTime: emu.nextCloseTime(),
        latestLedger: emu.latest.seq,
        authMode,
        authV2: p.authV2 === true,
        randomNonce: emu.randomNonce,
      });
    } catch (e) {
      if (e instanceof NotSimulatable) throw new RpcError(-32602, e.message);
      throw e;
    }
  },
  sendTransaction: (emu, params) => {
    const p = object(params);
    if (typeof p.transaction !== 'string') throw new RpcError(-32602, 'invalid_xdr');
    try {
      const sent = emu.submit(p.transaction);
      return {
        status: sent.status,
        hash: sent.hash,
        latestLedger: emu.latest.seq,
        latestLedgerCloseTime: emu.latest.closeTime.toString(),
        ...(sent.errorResultXdr === undefined ? {} : { errorResultXdr: sent.errorResultXdr }),
      };
    } catch (e) {
      if (e instanceof UndecodableEnvelope) throw new RpcError(-32602, 'invalid_xdr');
      throw e;
    }
  },
  getTransaction: (emu, params) => {
    const hash = object(params).hash;
    if (typeof hash !== 'string' || !/^[0-9a-fA-F]*$/.test(hash)) throw new RpcError(-32602, 'invalid hash');
    if (hash.length !== 64) throw new RpcError(-32602, `unexpected hash length (${hash.length})`);
    const t = emu.transaction(hash.toLowerCase());
    if (t === undefined) return { status: 'NOT_FOUND', ...ledgerWindow(emu) };
    return { status: t.success ? 'SUCCESS' : 'FAILED', ...ledgerWindow(emu), ...transactionInfo(t) };
  },
  getEvents: (emu, params) => getEvents(emu, params),
  getFeeStats: (emu) => {
    return {
      sorobanInclusionFee: feeStats(emu.latest.txCount),
      inclusionFee: feeStats(0),
      latestLedger: emu.latest.seq,
    };
  },
};
