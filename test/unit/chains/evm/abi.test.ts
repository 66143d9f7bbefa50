import { describe, expect, it } from 'vitest';
import {
  ERRORS_ABI,
  LIFECYCLE_TOPICS,
  orderBookInterface,
  erc20Interface,
  errorsInterface,
} from '../../../../src/chains/evm/abi.ts';
import { CONTRACT_ERRORS } from '../../../../src/core/venue-errors.ts';
import { loadArtifacts } from '../../../../src/sandbox/evm/compile.ts';

/** Events of an ABI as `Name(type indexed?, ...)`, the form in which the indexed flags show. */
function shapes(
  abi: readonly { type: string; name?: string; inputs?: readonly { type: string; indexed?: boolean }[] }[],
): string[] {
  return abi
    .filter((f) => f.type === 'event')
    .map(
      (f) => `${f.name}(${(f.inputs ?? []).map((i) => `${i.type}${i.indexed === true ? ' indexed' : ''}`).join(',')})`,
    )
    .toSorted();
}

describe('chain A ABI written from the specification', () => {
  it('declares the events with the same types and indexed flags as the deployed sandbox order book', () => {
    const ours = shapes(JSON.parse(orderBookInterface.formatJson()) as never);
    const deployed = shapes(loadArtifacts().contracts.OrderBook.abi as never);
    expect(ours).toEqual(deployed);
  });

  it('puts the client in topic 1 of every lifecycle event, so one topic filter follows a wallet', () => {
    for (const topic of LIFECYCLE_TOPICS) {
      const e = orderBookInterface.getEvent(topic);
      expect(e?.inputs[0]).toMatchObject({ name: 'client', type: 'address', indexed: true });
    }
    expect(LIFECYCLE_TOPICS).toHaveLength(7);
    expect(erc20Interface.getEvent('Transfer')?.inputs.map((i) => i.indexed === true)).toEqual([true, true, false]);
  });

  it('knows every error of the venue table with its prefix, and the ERC-20 errors of the deployed tokens', () => {
    for (const d of CONTRACT_ERRORS) expect(errorsInterface.getError(`OrderBook_${d.name}`)).not.toBeNull();
    const abi = loadArtifacts().contracts.EMoneyToken.abi as readonly { type: string; name?: string }[];
    const tokenErrors = abi
      .filter((f) => f.type === 'error' && String(f.name).startsWith('ERC20'))
      .map((f) => String(f.name));
    expect(tokenErrors.length).toBeGreaterThan(0);
    for (const name of tokenErrors) expect(ERRORS_ABI.some((e) => e.startsWith(`error ${name}(`))).toBe(true);
  });

  it('encodes the order book functions of the specification', () => {
    expect(orderBookInterface.getFunction('newBuyOrder')?.format('sighash')).toBe('newBuyOrder(bytes,bytes,bytes)');
    expect(orderBookInterface.getFunction('cancelSellOrder')?.format('sighash')).toBe('cancelSellOrder(uint64)');
  });
});
