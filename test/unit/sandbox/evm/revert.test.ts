/** Chain A revert data of the venue contracts decoded into the typed errors the bot reasons about. */
import { AbiCoder, Interface, concat, getAddress, id } from 'ethers';
import { describe, expect, it } from 'vitest';
import { loadArtifacts } from '../../../../src/sandbox/evm/compile.ts';
import { decodeRevertData, revertToError } from '../../../../src/sandbox/evm/revert.ts';

const token = new Interface(loadArtifacts().contracts.EMoneyToken.abi as never);
const book = new Interface(loadArtifacts().contracts.OrderBook.abi as never);
const spender = getAddress('0x00000000000000000000000000000000000000aa');

describe('chain A revert decoding', () => {
  it('decodes token custom errors with their arguments and order book errors by name', () => {
    const data = token.encodeErrorResult('ERC20InsufficientAllowance', [spender, 5n, 9n]);
    expect(decodeRevertData(data)).toEqual({
      name: 'ERC20InsufficientAllowance',
      args: { spender, allowance: 5n, needed: 9n },
    });
    expect(decodeRevertData(book.encodeErrorResult('OrderBook_PreTradeControlPriceNotOnTick', []))?.name).toBe(
      'OrderBook_PreTradeControlPriceNotOnTick',
    );
  });

  it('reads revert strings and finds the data inside nested ethers errors', () => {
    const reason = concat([
      id('Error(string)').slice(0, 10),
      AbiCoder.defaultAbiCoder().encode(['string'], ['Receiver must be a beneficiary']),
    ]);
    const nested = { code: 'CALL_EXCEPTION', info: { error: { data: reason } } };
    expect(revertToError(nested).code).toBe('E_VENUE_NOT_BENEFICIARY');
    expect(
      revertToError({ error: { data: book.encodeErrorResult('OrderBook_OrderBookNotOpenForTrading', []) } }).code,
    ).toBe('E_VENUE_MARKET_CLOSED');
  });

  it('rethrows what is not a venue revert', () => {
    const plain = new Error('connection refused');
    expect(() => revertToError(plain)).toThrow(plain);
    expect(decodeRevertData('0xdeadbeef')).toBeUndefined();
  });
});
