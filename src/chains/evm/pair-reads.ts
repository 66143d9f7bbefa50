/**
 * Reads of the order book, its tokens and the venue's whitelist, through `eth_call`. `getConfig` is decoded
 * against the tuple of venue-facts.md and checked (positive scales, commissions within 100%, the tokens of the
 * pair); a contract that answers another shape is reported with what it answered, never read half right.
 */
import { DltError } from '../../core/errors.ts';
import type { PairScales } from '../../core/units.ts';
import { erc20Interface, orderBookInterface, whitelistInterface } from './abi.ts';
import { rpcFailure, rpcFailureOf } from './json-rpc.ts';
import type { EvmRpc } from './rpc-client.ts';
import { BoundedMemo } from '../../core/bounded-memo.ts';

export interface OrderBookConfig {
  readonly scales: PairScales;
  readonly makerBps: number;
  readonly takerBps: number;
  readonly marketMakerBps: number;
  readonly quoteToken: string;
  readonly baseToken: string;
  readonly whitelist: string;
  readonly commissionWallet: string;
  readonly liquidityBand: number;
  /** `bytes11` as text (trailing zero bytes dropped), e.g. `1.0.0`. */
  readonly version: string;
}

export interface ClientInfo {
  readonly id: bigint;
  readonly canTransfer: boolean;
  readonly canBuy: boolean;
  readonly canSell: boolean;
  readonly canCancel: boolean;
  readonly isMarketMaker: boolean;
}

/** How many call data and decoded answers each interface keeps; past it, it starts again. */
const ABI_MEMO_LIMIT = 512;

/**
 * The ABI work of views, remembered per interface: the bot asks the same few calls again and again (every pair's
 * phase and configuration each poll, every token's balance of the wallet), and the contract mostly answers what
 * it answered before. Call data by function and arguments, decoded answers by function and answer bytes (ethers'
 * Results; callers only read them).
 */
interface AbiMemo {
  readonly calls: BoundedMemo<string, string>;
  readonly answers: BoundedMemo<string, readonly unknown[]>;
}
const abiMemo = new WeakMap<object, AbiMemo>();

function memoOf(iface: object): AbiMemo {
  let memo = abiMemo.get(iface);
  if (memo === undefined) {
    memo = { calls: new BoundedMemo(ABI_MEMO_LIMIT), answers: new BoundedMemo(ABI_MEMO_LIMIT) };
    abiMemo.set(iface, memo);
  }
  return memo;
}

/** The call data of `fn(args)`; arguments other than text and integers are encoded afresh. */
function callData(iface: typeof orderBookInterface, fn: string, args: readonly unknown[]): string {
  if (!args.every((a) => typeof a === 'string' || typeof a === 'bigint')) return iface.encodeFunctionData(fn, args);
  return memoOf(iface).calls.of(`${fn}(${args.join(',')})`, () => iface.encodeFunctionData(fn, args));
}

/** `fn`'s answer `data`, decoded (throws when it does not decode). */
function decodedAnswer(iface: typeof orderBookInterface, fn: string, data: string): readonly unknown[] {
  return memoOf(iface).answers.of(`${fn}:${data}`, () => iface.decodeFunctionResult(fn, data));
}

/** One view call; a failure or an answer that does not decode names the function and the contract. */
async function view(
  rpc: EvmRpc,
  from: string,
  to: string,
  iface: typeof orderBookInterface,
  fn: string,
  args: readonly unknown[] = [],
  tag: bigint | 'latest' = 'latest',
): Promise<readonly unknown[]> {
  let data: string;
  try {
    data = await rpc.call({ from, to, data: callData(iface, fn, args) }, tag);
  } catch (e) {
    const f = rpcFailureOf(e);
    if (f === null || f.kind !== 'rpc') throw e;
    // The contract refused the call: most likely the address does not hold the contract the specification names.
    throw rpcFailure('eth_call', 'rpc', `${fn} of ${to} failed: ${f.rpcMessage}`, {
      ...(f.rpcCode === null ? {} : { rpcCode: f.rpcCode }),
      data: f.data,
      cause: e,
    });
  }
  try {
    return decodedAnswer(iface, fn, data);
  } catch {
    throw rpcFailure(
      'eth_call',
      'malformed',
      `${fn} of ${to} answered ${(data.length - 2) / 2} bytes that do not decode as ${iface.getFunction(fn)?.format('sighash') ?? fn} returns`,
      {
        data,
      },
    );
  }
}

function bps(v: bigint, what: string, at: string): number {
  if (v > 10_000n) throw rpcFailure('eth_call', 'malformed', `getConfig of ${at}: ${what} ${v} bp is above 100%`);
  return Number(v);
}

function scale(v: bigint, what: string, at: string): bigint {
  if (v <= 0n) throw rpcFailure('eth_call', 'malformed', `getConfig of ${at}: ${what} ${v} is not a positive scale`);
  return v;
}

export async function readConfig(rpc: EvmRpc, from: string, orderBook: string): Promise<OrderBookConfig> {
  const [c] = (await view(rpc, from, orderBook, orderBookInterface, 'getConfig')) as [readonly unknown[]];
  const [base, quote, maker, taker, mm, quoteToken, baseToken, whitelist, commissionWallet, , , band, version] = c as [
    readonly [bigint, bigint],
    readonly [bigint, bigint],
    bigint,
    bigint,
    bigint,
    string,
    string,
    string,
    string,
    string,
    string,
    bigint,
    string,
  ];
  const text = Buffer.from(version.slice(2), 'hex').toString('utf8').replace(/\0+$/, '');
  return {
    scales: {
      baseInternal: scale(base[0], 'base scale', orderBook),
      baseNative: scale(base[1], 'base native scale', orderBook),
      quoteInternal: scale(quote[0], 'quote scale', orderBook),
      quoteNative: scale(quote[1], 'quote native scale', orderBook),
    },
    makerBps: bps(maker, 'makerCommission', orderBook),
    takerBps: bps(taker, 'takerCommission', orderBook),
    marketMakerBps: bps(mm, 'marketMakerCommission', orderBook),
    quoteToken,
    baseToken,
    whitelist,
    commissionWallet,
    liquidityBand: Number(band),
    version: text,
  };
}

/** Checks that the contract's tokens are the pair's (a wrong address in the REST record must not trade). */
export function checkTokens(
  config: OrderBookConfig,
  pair: {
    readonly pairId: string;
    readonly baseToken: string;
    readonly quoteToken: string;
    readonly orderBook: string;
  },
): void {
  const wrong: string[] = [];
  if (config.baseToken.toLowerCase() !== pair.baseToken.toLowerCase())
    wrong.push(`base token ${config.baseToken} (pair says ${pair.baseToken})`);
  if (config.quoteToken.toLowerCase() !== pair.quoteToken.toLowerCase())
    wrong.push(`quote token ${config.quoteToken} (pair says ${pair.quoteToken})`);
  if (wrong.length > 0) {
    throw new DltError(
      'E_PAIR_INVALID',
      `order book ${pair.orderBook} of pair ${pair.pairId} trades other tokens: ${wrong.join('; ')}`,
      {
        details: { pairId: pair.pairId, orderBook: pair.orderBook, wrong },
      },
    );
  }
}

export async function readPhase(rpc: EvmRpc, from: string, orderBook: string): Promise<number> {
  const [phase] = (await view(rpc, from, orderBook, orderBookInterface, 'getOrderBookPhase')) as [bigint];
  return Number(phase);
}

/** `balanceOf` at the latest block, or at block `tag`. */
export async function readTokenBalance(
  rpc: EvmRpc,
  from: string,
  token: string,
  owner: string,
  tag: bigint | 'latest' = 'latest',
): Promise<bigint> {
  const [v] = (await view(rpc, from, token, erc20Interface, 'balanceOf', [owner], tag)) as [bigint];
  return v;
}

export async function readTokenAllowance(
  rpc: EvmRpc,
  from: string,
  token: string,
  owner: string,
  spender: string,
): Promise<bigint> {
  const [v] = (await view(rpc, from, token, erc20Interface, 'allowance', [owner, spender])) as [bigint];
  return v;
}

export async function readClientInfo(
  rpc: EvmRpc,
  from: string,
  whitelist: string,
  client: string,
): Promise<ClientInfo> {
  const [id, canTransfer, canBuy, canSell, canCancel, isMarketMaker] = (await view(
    rpc,
    from,
    whitelist,
    whitelistInterface,
    'readClientInfo',
    [client],
  )) as [bigint, boolean, boolean, boolean, boolean, boolean];
  return { id, canTransfer, canBuy, canSell, canCancel, isMarketMaker };
}
