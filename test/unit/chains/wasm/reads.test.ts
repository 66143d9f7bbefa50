/** The order book's phase and pre-fund flag in the shapes a Soroban contract may return them. */
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { noPrefundOf, phaseOf } from '../../../../src/chains/wasm/pair-state.ts';
import { scv, type ScVal } from '../../../../src/chains/wasm/scval.ts';

describe('phase', () => {
  it('reads a unit enum variant (a vector holding its name), a symbol, a string or an integer', () => {
    const forms: ScVal[] = [
      { type: 16, vec: [scv.sym('OpenForTrading')] },
      scv.sym('ManualHalt'),
      { type: 14, str: new xdr.XdrString('ClosedForTrading') },
      scv.u32(1),
    ];
    expect(forms.map((f) => phaseOf(f))).toEqual(['OpenForTrading', 'ManualHalt', 'ClosedForTrading', 1]);
  });

  it('an unreadable phase is reported as such, and is never the open value', () => {
    expect(phaseOf({ type: 16, vec: [] })).toMatch(/^unreadable/);
  });
});

describe('no_prefund_config', () => {
  it('reads a bool, an integer flag or a struct holding a bool; anything else is unknown', () => {
    const struct: ScVal = { type: 17, map: [{ key: scv.sym('enabled'), val: { type: 0, b: true } }] };
    expect([
      noPrefundOf({ type: 0, b: true }),
      noPrefundOf({ type: 0, b: false }),
      noPrefundOf(scv.u32(0)),
      noPrefundOf(struct),
      noPrefundOf(scv.sym('x')),
      noPrefundOf(undefined),
    ]).toEqual([true, false, false, true, null, null]);
  });
});
