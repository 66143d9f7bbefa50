import { describe, expect, it, vi } from 'vitest';
import { erc20Interface, orderBookInterface } from '../../../../src/chains/evm/abi.ts';
import { checkTokens, readConfig, readPhase, readTokenBalance } from '../../../../src/chains/evm/pair-reads.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import { scripted } from '../../../support/chains/evm/scripted-rpc.ts';

const BOOK = '0x5174c2b8cb5aaed0303ce69793dc3f1ee00de8df';
const A = (n: number) => `0x${String(n).repeat(40)}`;
const version = `0x${Buffer.from('1.0.0').toString('hex').padEnd(22, '0')}`;
const config = (maker = 10n) => [
  [[10_000n, 100_000_000n], [10_000n, 1_000_000n], maker, 20n, 5n, A(1), A(2), A(3), A(4), A(5), A(6), 4, version],
];

describe('reading getConfig', () => {
  it('decodes the tuple of venue-facts.md into scales, commissions, tokens and version', async () => {
    const s = scripted({ eth_call: () => orderBookInterface.encodeFunctionResult('getConfig', config()) });
    const c = await readConfig(s.client, A(9), BOOK);
    expect(c).toMatchObject({
      scales: { baseInternal: 10_000n, baseNative: 100_000_000n, quoteInternal: 10_000n, quoteNative: 1_000_000n },
      makerBps: 10,
      takerBps: 20,
      marketMakerBps: 5,
      quoteToken: expect.stringMatching(/^0x1{40}$/i),
      baseToken: expect.stringMatching(/^0x2{40}$/i),
      liquidityBand: 4,
      version: '1.0.0',
    });
    expect(() => checkTokens(c, { pairId: 'p', orderBook: BOOK, baseToken: A(2), quoteToken: A(2) })).toThrow(
      /trades other tokens: quote token/,
    );
  });

  it('reports an answer of another shape with the function, the contract and the size, and counts nothing as success', async () => {
    const short = scripted({ eth_call: () => `0x${'00'.repeat(96)}` });
    await expect(readConfig(short.client, A(9), BOOK)).rejects.toMatchObject({
      code: 'E_CHAIN_RPC',
      message: expect.stringContaining(`getConfig of ${BOOK} answered 96 bytes that do not decode`),
      details: { kind: 'malformed' },
    });
    const silly = scripted({ eth_call: () => orderBookInterface.encodeFunctionResult('getConfig', config(20_000n)) });
    await expect(readConfig(silly.client, A(9), BOOK)).rejects.toThrow(/makerCommission 20000 bp is above 100%/);
    const garbage = scripted({ eth_call: () => 'not hex' });
    await expect(readConfig(garbage.client, A(9), BOOK)).rejects.toMatchObject({ code: 'E_CHAIN_RPC' });
    expect(await metricValue(garbage.metrics, 'dltmm_evm_malformed_total', { source: 'eth_call' })).toBe(1);
  });
});

describe('the ABI work of views', () => {
  it('is done once for the same call and the same answer, and again for another answer', async () => {
    const encode = vi.spyOn(orderBookInterface, 'encodeFunctionData');
    const decode = vi.spyOn(orderBookInterface, 'decodeFunctionResult');
    let phase = 1;
    const s = scripted({ eth_call: () => orderBookInterface.encodeFunctionResult('getOrderBookPhase', [phase]) });
    expect([await readPhase(s.client, A(9), BOOK), await readPhase(s.client, A(9), BOOK)]).toEqual([1, 1]);
    expect({ encoded: encode.mock.calls.length, decoded: decode.mock.calls.length }).toEqual({
      encoded: 1,
      decoded: 1,
    });
    phase = 3;
    expect(await readPhase(s.client, A(9), BOOK)).toBe(3);
    expect({ encoded: encode.mock.calls.length, decoded: decode.mock.calls.length }).toEqual({
      encoded: 1,
      decoded: 2,
    });
    // Each call sent the same call data.
    expect(new Set(s.calls.map((c) => JSON.stringify(c.params[0])))).toHaveProperty('size', 1);
  });

  it('keeps calls with other arguments apart', async () => {
    const balances: Record<string, bigint> = { [A(1)]: 5n, [A(2)]: 7n };
    const s = scripted({
      eth_call: (params) => {
        const data = (params[0] as { data: string }).data;
        const [owner] = erc20Interface.decodeFunctionData('balanceOf', data) as unknown as [string];
        return erc20Interface.encodeFunctionResult('balanceOf', [balances[owner.toLowerCase()] ?? 0n]);
      },
    });
    const read = (owner: string) => readTokenBalance(s.client, A(9), A(3), owner);
    expect([await read(A(1)), await read(A(2)), await read(A(1))]).toEqual([5n, 7n, 5n]);
  });
});
