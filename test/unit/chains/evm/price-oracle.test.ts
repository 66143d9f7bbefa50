/**
 * Reading a chain A price feed over a scripted node: the AggregatorV3Interface answers decoded, every word
 * held to its type (a malformed answer is an E_CHAIN_RPC error, never a masked number), a revert named with
 * the feed, and the consumer checks that make an answer unusable.
 */
import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  AGGREGATOR_V3_ABI,
  aggregatorAnswerProblem,
  readAggregator,
  type AggregatorAnswer,
} from '../../../../src/chains/evm/price-oracle.ts';
import { rpcFailure } from '../../../../src/chains/evm/json-rpc.ts';
import { scripted } from '../../../support/chains/evm/scripted-rpc.ts';

const FEED = '0x5174c2b8cb5aaed0303ce69793dc3f1ee00de8df';
const feed = new Interface([...AGGREGATOR_V3_ABI]);
const word = (v: bigint) => v.toString(16).padStart(64, '0');

/** A node whose feed answers `decimals` and `round` (raw 0x data or the tuple encoded by the ABI). */
function node(decimals: string, round: string) {
  return scripted({
    eth_call: (params) => {
      const data = (params[0] as { data: string }).data;
      if (data === feed.getFunction('decimals')?.selector) return decimals;
      if (data === feed.getFunction('latestRoundData')?.selector) return round;
      throw new Error(`unexpected call ${data}`);
    },
  });
}

const decimals8 = feed.encodeFunctionResult('decimals', [8]);
const round = (roundId: bigint, answer: bigint, updatedAt: bigint, answeredInRound = roundId) =>
  feed.encodeFunctionResult('latestRoundData', [roundId, answer, updatedAt, updatedAt, answeredInRound]);

describe('reading a price feed', () => {
  it('decodes decimals and the latest round', async () => {
    const s = node(decimals8, round(7n, 10_125_000_000n, 1_772_442_000n));
    expect(await readAggregator(s.client, FEED)).toEqual({
      roundId: 7n,
      answer: 10_125_000_000n,
      decimals: 8,
      updatedAtSeconds: 1_772_442_000n,
      answeredInRound: 7n,
    });
  });

  it('keeps a negative answer signed (the check, not the decoder, refuses it)', async () => {
    const s = node(decimals8, round(1n, -5n, 1n));
    expect((await readAggregator(s.client, FEED)).answer).toBe(-5n);
  });

  it('refuses an answer too short for its return values, with the function and the feed', async () => {
    const s = node(decimals8, `0x${word(1n).repeat(4)}`);
    await expect(readAggregator(s.client, FEED)).rejects.toMatchObject({
      code: 'E_CHAIN_RPC',
      details: { kind: 'malformed' },
      message: expect.stringContaining(`latestRoundData of price feed ${FEED} answered 128 bytes, not the 160`),
    });
  });

  it('refuses words outside their types instead of masking them', async () => {
    const bigRound = `0x${word(1n << 80n)}${word(5n)}${word(1n)}${word(1n)}${word(1n)}`;
    await expect(readAggregator(node(decimals8, bigRound).client, FEED)).rejects.toMatchObject({
      code: 'E_CHAIN_RPC',
      message: expect.stringContaining('roundId 0x100000000000000000000 is not a uint80'),
    });
    await expect(readAggregator(node(`0x${word(256n)}`, round(1n, 5n, 1n)).client, FEED)).rejects.toMatchObject({
      code: 'E_CHAIN_RPC',
      message: expect.stringContaining('decimals 0x100 is not a uint8'),
    });
    await expect(readAggregator(node('0x', round(1n, 5n, 1n)).client, FEED)).rejects.toMatchObject({
      code: 'E_CHAIN_RPC',
      details: { kind: 'malformed' },
    });
  });

  it('names the feed when the call reverts (a feed without data, or no feed at that address)', async () => {
    const s = scripted({
      eth_call: () => {
        throw rpcFailure('eth_call', 'rpc', 'execution reverted: No data present', { rpcCode: 3, data: '0x08c379a0' });
      },
    });
    await expect(readAggregator(s.client, FEED)).rejects.toMatchObject({
      code: 'E_CHAIN_RPC',
      details: { kind: 'rpc' },
      message: expect.stringContaining(`of price feed ${FEED} failed: execution reverted: No data present`),
    });
  });
});

describe('consumer checks of an answer', () => {
  const good: AggregatorAnswer = {
    roundId: 5n,
    answer: 100n,
    decimals: 8,
    updatedAtSeconds: 1000n,
    answeredInRound: 5n,
  };

  it('passes a positive answer of a complete round answered in itself', () => {
    expect(aggregatorAnswerProblem(good)).toBeNull();
    expect(aggregatorAnswerProblem({ ...good, answeredInRound: 6n })).toBeNull();
  });

  it('refuses an answer that is not positive, an incomplete round and a round carrying an older answer', () => {
    expect(aggregatorAnswerProblem({ ...good, answer: 0n })).toBe('answer 0 is not positive');
    expect(aggregatorAnswerProblem({ ...good, answer: -1n })).toBe('answer -1 is not positive');
    expect(aggregatorAnswerProblem({ ...good, updatedAtSeconds: 0n })).toBe('round 5 is not complete (updatedAt 0)');
    expect(aggregatorAnswerProblem({ ...good, answeredInRound: 4n })).toBe('round 5 carries the answer of round 4');
  });

  it('refuses an answer older than the given maximum age, and only when both now and the age are given', () => {
    expect(aggregatorAnswerProblem(good, { nowSeconds: 4600n, maxAgeSeconds: 3600n })).toBeNull();
    expect(aggregatorAnswerProblem(good, { nowSeconds: 4601n, maxAgeSeconds: 3600n })).toBe(
      'answer is 3601 s old, more than 3600 s',
    );
    expect(aggregatorAnswerProblem(good, { nowSeconds: 99_999n })).toBeNull();
  });
});
