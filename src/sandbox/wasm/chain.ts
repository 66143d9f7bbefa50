/**
 * Closed ledgers: sequence, close time and a real LedgerHeader whose hash chains to the previous one, so
 * `getLatestLedger` can hand the SDK the `headerXdr` and `metadataXdr` it decodes (SDK 15.1 and later throw
 * without them). The close meta is a version-0 LedgerCloseMeta over an empty transaction set: the emulator
 * serves transactions through getTransaction and events through getEvents, not through ledger meta.
 */
import { xdr } from '@stellar/stellar-sdk';
import { sha256 } from './crypto.ts';

export const PROTOCOL_VERSION = 23;
const ZERO_HASH = new Uint8Array(32);

export interface LedgerRecord {
  readonly seq: number;
  /** Unix seconds. */
  readonly closeTime: bigint;
  readonly hash: Uint8Array;
  readonly header: xdr.LedgerHeaderWire;
  readonly txCount: number;
}

export function genesisLedger(seq: number, closeTime: bigint): LedgerRecord {
  return sealLedger(null, seq, closeTime, ZERO_HASH, 0);
}

/** Seals ledger `seq`; `txDigest` stands for the applied transactions' results. */
export function sealLedger(
  prev: LedgerRecord | null,
  seq: number,
  closeTime: bigint,
  txDigest: Uint8Array,
  txCount: number,
): LedgerRecord {
  const header: xdr.LedgerHeaderWire = {
    ledgerVersion: PROTOCOL_VERSION,
    previousLedgerHash: prev?.hash ?? ZERO_HASH,
    scpValue: { txSetHash: sha256(txDigest), closeTime, upgrades: [], ext: { v: 0 } },
    txSetResultHash: txDigest.length === 32 ? txDigest : sha256(txDigest),
    bucketListHash: sha256(new Uint8Array([...(prev?.hash ?? ZERO_HASH), ...txDigest])),
    ledgerSeq: seq,
    totalCoins: 1_000_000_000_000_000_000n,
    feePool: 0n,
    inflationSeq: 0,
    idPool: 0n,
    baseFee: 100,
    baseReserve: 5_000_000,
    maxTxSetSize: 1000,
    skipList: [ZERO_HASH, ZERO_HASH, ZERO_HASH, ZERO_HASH],
    ext: { v: 0 },
  };
  const hash = sha256(xdr.LedgerHeader.schema.encode(header));
  return { seq, closeTime, hash, header, txCount };
}

export function headerXdr(l: LedgerRecord): string {
  return Buffer.from(xdr.LedgerHeader.schema.encode(l.header)).toString('base64');
}

export function closeMetaXdr(l: LedgerRecord): string {
  const meta: xdr.LedgerCloseMetaWire = {
    v: 0,
    v0: {
      ledgerHeader: { hash: l.hash, header: l.header, ext: { v: 0 } },
      txSet: { previousLedgerHash: l.header.previousLedgerHash, txs: [] },
      txProcessing: [],
      upgradesProcessing: [],
      scpInfo: [],
    },
  };
  return Buffer.from(xdr.LedgerCloseMeta.schema.encode(meta)).toString('base64');
}

export function hashHex(h: Uint8Array): string {
  return Buffer.from(h).toString('hex');
}
