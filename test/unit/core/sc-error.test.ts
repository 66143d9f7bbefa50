/**
 * The host's spelling of an `ScError`: the names stand at the numbers the XDR enums give them (checked against
 * the SDK's own `ScErrorType` and `ScErrorCode`), and a number no enum names is shown as it is.
 */
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { describeScError, SC_ERROR_CODES, SC_ERROR_TYPES } from '../../../src/core/encoding/sc-error.ts';

/** The SDK's enum, number to name without its prefix (`sceAuth` -> `Auth`, `scecInvalidAction` -> `InvalidAction`). */
function sdkNames(e: { schema: { nameByValue: ReadonlyMap<number, string> } }, prefix: string): string[] {
  return [...e.schema.nameByValue.entries()].toSorted(([a], [b]) => a - b).map(([, n]) => n.slice(prefix.length));
}

describe('ScError names', () => {
  it('are the XDR enums in order', () => {
    expect([...SC_ERROR_TYPES]).toEqual(sdkNames(xdr.ScErrorType as never, 'sce'));
    expect([...SC_ERROR_CODES]).toEqual(sdkNames(xdr.ScErrorCode as never, 'scec'));
  });

  it('render as the host renders them', () => {
    expect(describeScError({ type: 0, contractCode: 8 })).toBe('Error(Contract, #8)');
    expect(describeScError({ type: 9, code: 6 })).toBe('Error(Auth, InvalidAction)');
    expect(describeScError({ type: 2, code: 7 })).toBe('Error(Context, InternalError)');
    expect(describeScError({ type: 42, code: 99 })).toBe('Error(42, 99)');
  });
});
