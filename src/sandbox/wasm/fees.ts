/**
 * The emulator's fee model. The real network prices instructions, ledger entry reads and writes and bytes;
 * the emulator keeps the same shape with fixed rates, so a transaction whose declared resource fee is below
 * what its declared resources cost, or whose fee does not also cover the inclusion fee, is refused as on
 * the real network. The resources a simulation reports are a deterministic estimate from what the call touched.
 */
import type { xdr } from '@stellar/stellar-sdk';

/** Minimum inclusion fee per operation, stroops. */
export const BASE_FEE = 100n;

const PER_10K_INSTRUCTIONS = 25n;
const PER_ENTRY_READ = 2_000n;
const PER_ENTRY_WRITE = 8_000n;
const PER_BYTE = 2n;
const FLAT = 1_000n;

export function resourceFeeFor(r: xdr.SorobanResourcesWire): bigint {
  const entries = BigInt(r.footprint.readOnly.length + r.footprint.readWrite.length);
  return (
    FLAT +
    BigInt(Math.ceil(r.instructions / 10_000)) * PER_10K_INSTRUCTIONS +
    entries * PER_ENTRY_READ +
    BigInt(r.footprint.readWrite.length) * PER_ENTRY_WRITE +
    BigInt(r.diskReadBytes + r.writeBytes) * PER_BYTE
  );
}

/** Resources for a call that touched `footprint` and emitted `events` events. */
export function estimateResources(footprint: xdr.LedgerFootprintWire, events: number): xdr.SorobanResourcesWire {
  const classic = [...footprint.readOnly, ...footprint.readWrite].filter((k) => k.type === 0 || k.type === 1).length;
  return {
    footprint,
    instructions: 2_000_000 + 150_000 * events + 100_000 * (footprint.readOnly.length + footprint.readWrite.length),
    diskReadBytes: 200 * classic,
    writeBytes: 250 * footprint.readWrite.length,
  };
}
