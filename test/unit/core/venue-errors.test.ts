import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../../src/core/errors.ts';
import {
  CONTRACT_ERRORS,
  fromEvmRevert,
  fromRejectionReason,
  fromWasmContractCode,
  REJECTION_REASONS,
} from '../../../src/core/venue-errors.ts';

describe('chain B contract codes', () => {
  it('maps every code of the specification to its typed error', () => {
    const expected: Record<number, string> = {
      4: 'E_VENUE_NOT_ALLOWED_TO_BUY',
      5: 'E_VENUE_NOT_ALLOWED_TO_SELL',
      6: 'E_VENUE_CLIENT_NOT_FOUND',
      7: 'E_VENUE_NOT_ALLOWED_TO_CANCEL',
      8: 'E_VENUE_ORDER_NOT_FOUND',
      10: 'E_VENUE_INSUFFICIENT_BALANCE',
      13: 'E_VENUE_TRUSTLINE_MISSING',
      2004: 'E_VENUE_INVALID_ORDER_DATA',
      4001: 'E_VENUE_UNAUTHORIZED',
      1018: 'E_VENUE_PRICE_ABOVE_MAX_RANGE',
      1019: 'E_VENUE_PRICE_BELOW_MIN_RANGE',
      1020: 'E_VENUE_VALUE_ABOVE_MAX_RANGE',
      1021: 'E_VENUE_VOLUME_ABOVE_MAX_RANGE',
      1022: 'E_VENUE_VALUE_BELOW_MIN_RANGE',
      1023: 'E_VENUE_VOLUME_BELOW_MIN_RANGE',
      1025: 'E_VENUE_VOLATILITY_MAX_STATIC',
      1026: 'E_VENUE_VOLATILITY_MIN_STATIC',
      1027: 'E_VENUE_VOLATILITY_MAX_DYNAMIC',
      1028: 'E_VENUE_VOLATILITY_MIN_DYNAMIC',
    };
    for (const [code, errorCode] of Object.entries(expected))
      expect(fromWasmContractCode(Number(code)).code).toBe(errorCode);
    expect(fromWasmContractCode(9999).code).toBe('E_VENUE_CONTRACT_ERROR');
  });
  it('says whether a retry can help', () => {
    expect(fromWasmContractCode(4).retryable).toBe(false);
    expect(fromWasmContractCode(1025).retryable).toBe(true);
  });
  it('every mapped code exists in the catalogue and is unique', () => {
    const codes = CONTRACT_ERRORS.map((d) => d.wasmCode);
    expect(new Set(codes).size).toBe(codes.length);
    for (const d of CONTRACT_ERRORS) expect(ERROR_CATALOGUE[d.code]).toBeDefined();
  });
});

describe('chain A reverts', () => {
  it('maps the custom errors with their arguments, with or without the OrderBook_ prefix', () => {
    expect(fromEvmRevert('OrderBook_NotAllowedToBuy').code).toBe('E_VENUE_NOT_ALLOWED_TO_BUY');
    expect(fromEvmRevert('OrderBook_InvalidInputOrderData').code).toBe('E_VENUE_INVALID_ORDER_DATA');
    expect(fromEvmRevert('OrderBook_PreTradeControlOrderValueBelowMinRange').code).toBe(
      'E_VENUE_VALUE_BELOW_MIN_RANGE',
    );
    const allowance = fromEvmRevert('ERC20InsufficientAllowance', { spender: '0xabc', allowance: 5n, needed: 7n });
    expect(allowance.code).toBe('E_VENUE_INSUFFICIENT_ALLOWANCE');
    expect(allowance.retryable).toBe(true);
    expect(allowance.message).toBe('ERC20InsufficientAllowance(spender="0xabc", allowance=5, needed=7)');
    expect(fromEvmRevert('ERC20InsufficientBalance').code).toBe('E_VENUE_INSUFFICIENT_BALANCE');
    expect(fromEvmRevert('Receiver must be a beneficiary').code).toBe('E_VENUE_NOT_BENEFICIARY');
    expect(fromEvmRevert('SomethingElse').code).toBe('E_VENUE_CONTRACT_ERROR');
  });
});

describe('rejection reasons', () => {
  it('maps 0..8 and refuses to guess the meaning of others', () => {
    expect(REJECTION_REASONS.length).toBe(9);
    expect(fromRejectionReason(0)).toBeNull();
    expect(fromRejectionReason(1)?.code).toBe('E_REJECTED_SELF_TRADE');
    expect(fromRejectionReason(2)?.code).toBe('E_REJECTED_MAX_MATCHES');
    for (const r of [3, 4, 5, 6]) expect(fromRejectionReason(r)?.code).toBe('E_REJECTED_CIRCUIT_BREAKER');
    expect(fromRejectionReason(7)?.code).toBe('E_REJECTED_PARTIAL');
    expect(fromRejectionReason(8)?.code).toBe('E_REJECTED_FULL');
    expect(fromRejectionReason(9)?.code).toBe('E_REJECTED_UNKNOWN');
    expect(fromRejectionReason(5)?.details).toMatchObject({ name: 'CircuitBreakerPriceOutOfMaximumDynamicRange' });
  });
});
