/**
 * Reading a chain B SEP-40 oracle: the Asset argument in Soroban's enum encoding (the same bytes the
 * sandbox's contract reads), PriceData and None decoded, and every other answer an E_CHAIN_RPC malformed
 * error rather than a number.
 */
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { priceDataOf, readSep40, sep40AssetScVal } from '../../../../src/chains/wasm/price-oracle.ts';
import type { ScVal } from '../../../../src/chains/wasm/scval.ts';
import { assetScVal, priceDataScVal } from '../../../../src/sandbox/wasm/contracts/price-oracle.ts';
import { scv } from '../../../../src/sandbox/wasm/scval.ts';

const ORACLE = 'CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA';
const TOKEN = 'CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC';
const bytes = (v: xdr.ScVal | ScVal) =>
  Buffer.from(v instanceof xdr.ScVal ? v.toXDR() : xdr.ScVal.schema.encode(v)).toString('hex');

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

/** A reader whose `view` answers from a table by function name. */
function reader(answers: Record<string, ScVal>) {
  return {
    view: async (_contract: string, fn: string) => {
      const v = answers[fn];
      if (v === undefined) throw new Error(`unexpected ${fn}`);
      return v;
    },
  };
}

describe('SEP-40 asset argument', () => {
  it('encodes Stellar(Address) and Other(Symbol) as the sandbox contract reads them', () => {
    expect(bytes(sep40AssetScVal({ stellar: TOKEN }))).toBe(bytes(assetScVal({ stellar: TOKEN })));
    expect(bytes(sep40AssetScVal({ other: 'BOND26' }))).toBe(bytes(assetScVal({ other: 'BOND26' })));
  });

  it('refuses an address that is not one and a symbol Soroban cannot carry', () => {
    expect(() => sep40AssetScVal({ stellar: 'C123' })).toThrow(/not a Stellar address/);
    expect(() => sep40AssetScVal({ other: 'BOND 26' })).toThrow(/not a Soroban symbol/);
    expect(() => sep40AssetScVal({ other: 'X'.repeat(33) })).toThrow(/not a Soroban symbol/);
  });
});

describe('SEP-40 answers', () => {
  it('reads PriceData and decimals; None is no price', async () => {
    const data = priceDataScVal({ price: 10_125_000_000_000_000n, timestamp: 1_772_442_000n });
    expect(await readSep40(reader({ decimals: scv.u32(14), lastprice: data }), ORACLE, { other: 'A' })).toEqual({
      price: 10_125_000_000_000_000n,
      timestampSeconds: 1_772_442_000n,
      decimals: 14,
    });
    expect(
      await readSep40(reader({ decimals: scv.u32(14), lastprice: scv.void() }), ORACLE, { other: 'A' }),
    ).toBeNull();
  });

  it('refuses a PriceData of another shape and decimals that are not a u32, as malformed', async () => {
    const malformed = { code: 'E_CHAIN_RPC', details: { kind: 'malformed', contract: ORACLE } };
    for (const bad of [
      scv.u64(5n),
      scv.struct({ price: scv.u64(5n), timestamp: scv.u64(1n) }),
      scv.struct({ price: scv.i128(5n) }),
      scv.struct({ price: scv.i128(5n), timestamp: scv.u32(1) }),
    ]) {
      expect(thrown(() => priceDataOf(bad, ORACLE))).toMatchObject(malformed);
    }
    await expect(
      readSep40(reader({ decimals: scv.u64(14n), lastprice: scv.void() }), ORACLE, { other: 'A' }),
    ).rejects.toMatchObject({ ...malformed, message: expect.stringContaining('decimals of price oracle') });
  });
});
