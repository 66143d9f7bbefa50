/**
 * Reporting data: 256 bits on both chains, of which the two lowest 32-bit values are interpreted by the venue
 * to attribute the order. Here they are called `a` and `b`, in the order the venue's SDK writes them: on
 * chain A as the ABI tuple (uint32 a, uint32 b); on chain B as one big-endian 256-bit value
 * `free << 64 | a << 32 | b`, or the single zero byte placeholder when everything is zero.
 */
import { DltError } from '../errors.ts';
import { UINT32_MAX } from '../units.ts';

export interface ReportingData {
  readonly a: number;
  readonly b: number;
  /** Bits 64..255 (chain B only), free for participant use. */
  readonly free: bigint;
}

export const ZERO_REPORTING: ReportingData = { a: 0, b: 0, free: 0n };

export function checkReporting(r: ReportingData): void {
  for (const [name, v] of [
    ['a', r.a],
    ['b', r.b],
  ] as const) {
    if (!Number.isInteger(v) || v < 0 || BigInt(v) > UINT32_MAX) {
      throw new DltError('E_ENCODING_REPORTING', `reporting value ${name}=${v} is not a uint32`, {
        details: { [name]: v },
      });
    }
  }
  if (r.free < 0n || r.free >= 1n << 192n) {
    throw new DltError('E_ENCODING_REPORTING', 'free reporting bits do not fit in bits 64..255', {
      details: { free: r.free.toString() },
    });
  }
}

/** Parses `A,B` (two uint32 values) as given on the command line or in config. */
export function parseReportingPair(text: string): ReportingData {
  const parts = text.split(',');
  if (parts.length !== 2 || parts.some((p) => !/^[0-9]{1,10}$/.test(p.trim()))) {
    throw new DltError(
      'E_ENCODING_REPORTING',
      `reporting data ${JSON.stringify(text)} is not two uint32 values "A,B"`,
      {
        details: { text },
      },
    );
  }
  const r = { a: Number(parts[0]), b: Number(parts[1]), free: 0n };
  checkReporting(r);
  return r;
}
