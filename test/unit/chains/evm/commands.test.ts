import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderBookInterface } from '../../../../src/chains/evm/abi.ts';
import { bytesCall, placeCalldata } from '../../../../src/chains/evm/commands.ts';
import type { PlaceCommand } from '../../../../src/chains/types.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../../src/core/order-terms.ts';
import { derivePairRules } from '../../../../src/core/rules.ts';
import { pairWith } from '../../../support/pairs.ts';

describe('chain A calldata', () => {
  it('writes bytes arguments exactly as the ABI encoder does, for any lengths', () => {
    const sel = (orderBookInterface.getFunction('newBuyOrder') as { selector: string }).selector;
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 100 }),
        fc.uint8Array({ maxLength: 70 }),
        fc.uint8Array({ maxLength: 40 }),
        (a, b, c) => {
          expect(bytesCall(sel.slice(2), [a, b, c])).toBe(
            orderBookInterface.encodeFunctionData('newBuyOrder', [a, b, c]),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('encodes a placement with the core: scaled quantity and price, our client order id as the cross identifier', () => {
    const rules = derivePairRules(pairWith('evm-pair'));
    const c = {
      pair: { rules },
      clientOrderId: 77n,
      reporting: { a: 1, b: 2, free: 0n },
      terms: { ...DEFAULT_ORDER_OPTIONS, side: 'sell', quantity: new Decimal('1.5'), price: new Decimal('101.2') },
    } as unknown as PlaceCommand;
    const decoded = orderBookInterface.decodeFunctionData('newSellOrder', placeCalldata(c));
    expect(decoded.map(String)).toEqual([
      `0x${15_000n.toString(16).padStart(64, '0')}${1_012_000n.toString(16).padStart(64, '0')}`,
      `0x${'1'.padStart(64, '0')}${'2'.padStart(64, '0')}`,
      `0x${77n.toString(16).padStart(64, '0')}`,
    ]);
  });
});
