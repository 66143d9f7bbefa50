import { AbiCoder, id } from 'ethers';
import { describe, expect, it } from 'vitest';
import { errorsInterface } from '../../../../src/chains/evm/abi.ts';
import { parseRevert, revertError, revertLabel } from '../../../../src/chains/evm/revert-decoder.ts';
import { CONTRACT_ERRORS } from '../../../../src/core/venue-errors.ts';

const SPENDER = '0x5174c2b8cb5aaed0303ce69793dc3f1ee00de8df';
const errorString = (text: string) => `0x08c379a0${AbiCoder.defaultAbiCoder().encode(['string'], [text]).slice(2)}`;

describe('chain A revert decoding', () => {
  it('maps every OrderBook_ custom error of the venue table to its typed error', () => {
    for (const d of CONTRACT_ERRORS) {
      const e = revertError(errorsInterface.encodeErrorResult(`OrderBook_${d.name}`, []), { pairId: 'p' });
      expect([e.code, e.details.name, e.details.pairId]).toEqual([d.code, `OrderBook_${d.name}`, 'p']);
    }
  });

  it('decodes ERC-20 errors with their arguments, and the beneficiary revert string', () => {
    const e = revertError(errorsInterface.encodeErrorResult('ERC20InsufficientAllowance', [SPENDER, 5n, 9n]));
    expect(e.code).toBe('E_VENUE_INSUFFICIENT_ALLOWANCE');
    expect(e.retryable).toBe(true);
    expect(e.details.args).toEqual({ spender: SPENDER, allowance: 5n, needed: 9n });
    expect(e.message).toBe(`ERC20InsufficientAllowance(spender="${SPENDER}", allowance=5, needed=9)`);
    expect(revertError(errorString('Receiver must be a beneficiary')).code).toBe('E_VENUE_NOT_BENEFICIARY');
  });

  it('keeps unknown selectors, other revert strings and empty data as contract errors with what was seen', () => {
    const unknown = `${id('Mystery(uint256)').slice(0, 10)}${'00'.repeat(32)}`;
    expect(revertError(unknown)).toMatchObject({
      code: 'E_VENUE_CONTRACT_ERROR',
      details: { selector: unknown.slice(0, 10), data: unknown },
    });
    expect(revertError(errorString('paused')).message).toBe('revert paused');
    expect(revertError(null)).toMatchObject({ code: 'E_VENUE_CONTRACT_ERROR', details: { data: null } });
    expect(parseRevert('0x08c379a0ff')).toBeNull();
  });

  it('labels the metric with bounded names', () => {
    expect(revertLabel(revertError(errorsInterface.encodeErrorResult('OrderBook_NotAllowedToSell', [])))).toBe(
      'OrderBook_NotAllowedToSell',
    );
    expect(revertLabel(revertError(errorString('Receiver must be a beneficiary')))).toBe(
      'Receiver must be a beneficiary',
    );
    expect(revertLabel(revertError(errorString(`free text ${Math.PI}`)))).toBe('other');
    expect(revertLabel(revertError('0x'))).toBe('no_data');
  });
});
