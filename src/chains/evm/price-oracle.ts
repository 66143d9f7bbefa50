/**
 * Reading a Chainlink-compatible price feed (AggregatorV3Interface) through `eth_call`: `decimals()` and
 * `latestRoundData()`, decoded strictly (a word outside its type's range is not masked into a number, as an
 * ABI decoder would: the answer is refused as malformed; an `updatedAt` beyond 64 bits is no time either),
 * and the consumer checks of a price feed: a positive answer, a complete round, `answeredInRound >= roundId`,
 * and optionally its age from `updatedAt`.
 */
import { Interface } from 'ethers';
import type { Logger } from '../../telemetry/logger.ts';
import { silentLogger } from '../../telemetry/logger.ts';
import { httpTransport, rpcFailure, rpcFailureOf } from './json-rpc.ts';
import { EvmRpc } from './rpc-client.ts';

export const AGGREGATOR_V3_ABI = [
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function version() view returns (uint256)',
  'function getRoundData(uint80 _roundId) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
] as const;

const aggregator = new Interface([...AGGREGATOR_V3_ABI]);
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface AggregatorAnswer {
  readonly roundId: bigint;
  /** Scaled by 10^decimals. */
  readonly answer: bigint;
  readonly decimals: number;
  readonly updatedAtSeconds: bigint;
  readonly answeredInRound: bigint;
}

/** One view call's answer as `count` 32-byte words; a failure or a short answer names the function and feed. */
async function callWords(rpc: EvmRpc, feed: string, fn: string, count: number, from: string): Promise<bigint[]> {
  let data: string;
  try {
    data = await rpc.call({ from, to: feed, data: aggregator.encodeFunctionData(fn, []) });
  } catch (e) {
    const f = rpcFailureOf(e);
    if (f === null || f.kind !== 'rpc') throw e;
    throw rpcFailure('eth_call', 'rpc', `${fn} of price feed ${feed} failed: ${f.rpcMessage}`, {
      ...(f.rpcCode === null ? {} : { rpcCode: f.rpcCode }),
      data: f.data,
      cause: e,
    });
  }
  if (data.length < 2 + 64 * count)
    throw rpcFailure(
      'eth_call',
      'malformed',
      `${fn} of price feed ${feed} answered ${(data.length - 2) / 2} bytes, not the ${32 * count} of its return values`,
      { data },
    );
  return Array.from({ length: count }, (_, i) => BigInt(`0x${data.slice(2 + 64 * i, 66 + 64 * i)}`));
}

function unsigned(word: bigint, bits: number, what: string, feed: string): bigint {
  if (word >= 1n << BigInt(bits))
    throw rpcFailure(
      'eth_call',
      'malformed',
      `price feed ${feed}: ${what} 0x${word.toString(16)} is not a uint${bits}`,
    );
  return word;
}

/** `decimals()` and `latestRoundData()` of the feed at the latest block. */
export async function readAggregator(
  rpc: EvmRpc,
  feed: string,
  options: { readonly from?: string } = {},
): Promise<AggregatorAnswer> {
  const from = options.from ?? ZERO_ADDRESS;
  const [[decimals], round] = await Promise.all([
    callWords(rpc, feed, 'decimals', 1, from),
    callWords(rpc, feed, 'latestRoundData', 5, from),
  ]);
  const [roundId, answer, , updatedAt, answeredInRound] = round as [bigint, bigint, bigint, bigint, bigint];
  return {
    roundId: unsigned(roundId, 80, 'roundId', feed),
    answer: BigInt.asIntN(256, answer),
    decimals: Number(unsigned(decimals as bigint, 8, 'decimals', feed)),
    updatedAtSeconds: unsigned(updatedAt, 64, 'updatedAt', feed),
    answeredInRound: unsigned(answeredInRound, 80, 'answeredInRound', feed),
  };
}

export interface AnswerCheckOptions {
  /** With `maxAgeSeconds`: an answer updated longer ago than that is unusable. */
  readonly nowSeconds?: bigint;
  readonly maxAgeSeconds?: bigint;
}

/** Why the answer must not be used, or null when it passes a price feed consumer's checks. */
export function aggregatorAnswerProblem(a: AggregatorAnswer, options: AnswerCheckOptions = {}): string | null {
  if (a.answer <= 0n) return `answer ${a.answer} is not positive`;
  if (a.updatedAtSeconds === 0n) return `round ${a.roundId} is not complete (updatedAt 0)`;
  if (a.answeredInRound < a.roundId) return `round ${a.roundId} carries the answer of round ${a.answeredInRound}`;
  const { nowSeconds, maxAgeSeconds } = options;
  if (nowSeconds !== undefined && maxAgeSeconds !== undefined && nowSeconds - a.updatedAtSeconds > maxAgeSeconds)
    return `answer is ${nowSeconds - a.updatedAtSeconds} s old, more than ${maxAgeSeconds} s`;
  return null;
}

/** A standalone reader of chain A price feeds over one node's RPC URL. */
export class AggregatorReader {
  readonly #rpc: EvmRpc;

  constructor(rpcUrl: string, options: { readonly timeoutMs?: number; readonly logger?: Logger } = {}) {
    this.#rpc = new EvmRpc(
      httpTransport(rpcUrl, { timeoutMs: options.timeoutMs ?? 10_000 }),
      null,
      options.logger ?? silentLogger(),
    );
  }

  read(feed: string): Promise<AggregatorAnswer> {
    return readAggregator(this.#rpc, feed);
  }
}
