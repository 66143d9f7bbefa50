/**
 * Reading chain A state for the adapter: the order book's configuration (cached per book, its tokens
 * checked against the pair), phase, balances, allowances, the whitelist's record of the wallet, and whether
 * an order still rests (a cancellation simulated at the latest block).
 */
import { isPhaseOpen } from '../../core/calendar.ts';
import { DltError } from '../../core/errors.ts';
import type { Side } from '../../core/order-terms.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type {
  Allowance,
  Balances,
  BalancesAt,
  OnChainPairState,
  OrderProbe,
  PairBinding,
  TokenRole,
  WalletBalances,
} from '../types.ts';
import { cancelCalldata } from './commands.ts';
import { rpcFailure, rpcFailureOf } from './json-rpc.ts';
import {
  checkTokens,
  readClientInfo,
  readConfig,
  readPhase,
  readTokenAllowance,
  readTokenBalance,
  type ClientInfo,
  type OrderBookConfig,
} from './pair-reads.ts';
import { revertError } from './revert-decoder.ts';
import type { EvmRpc } from './rpc-client.ts';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export class EvmReader {
  readonly #rpc: EvmRpc;
  readonly #wallet: string;
  readonly #logger: Logger;
  /** Reads asked for many pairs at once (the wallet's balances, every book's phase), over a transport whose
   * calls made together leave as one batch. */
  readonly #gathered: EvmRpc;
  readonly #configs = new Map<string, OrderBookConfig>();

  constructor(rpc: EvmRpc, wallet: string, logger: Logger, gathered: EvmRpc = rpc) {
    this.#rpc = rpc;
    this.#gathered = gathered;
    this.#wallet = wallet;
    this.#logger = logger;
  }

  /** Throws unless the node's `eth_chainId` is the chain the wallet signs for. */
  async checkChainId(expected: bigint): Promise<void> {
    const chainId = await this.#rpc.chainId();
    if (chainId !== expected)
      throw new DltError(
        'E_CONFIG_INVALID',
        `the chain A node reports chain id ${chainId}, the wallet signs for ${expected}`,
        { details: { expected: expected.toString(), actual: chainId.toString() } },
      );
  }

  async #config(pair: PairBinding, rpc = this.#rpc): Promise<OrderBookConfig> {
    const cached = this.#configs.get(pair.orderBook.toLowerCase());
    if (cached !== undefined) return cached;
    const config = await readConfig(rpc, this.#wallet, pair.orderBook);
    checkTokens(config, pair);
    this.#configs.set(pair.orderBook.toLowerCase(), config);
    return config;
  }

  /** The order book's configuration read afresh, and its phase (in one batch with the other books' asked together). */
  async pairState(pair: PairBinding): Promise<OnChainPairState> {
    this.#configs.delete(pair.orderBook.toLowerCase());
    const [config, phase] = await Promise.all([
      this.#config(pair, this.#gathered),
      readPhase(this.#gathered, this.#wallet, pair.orderBook),
    ]);
    // Contract v1 on chain A locks at placement; there is no no-prefund entry in its configuration.
    return {
      phase,
      open: isPhaseOpen('evm', phase),
      scales: config.scales,
      makerBps: config.makerBps,
      takerBps: config.takerBps,
      marketMakerBps: config.marketMakerBps,
      prefunded: true,
    };
  }

  async balances(pair: PairBinding): Promise<Balances> {
    const [base, quote, native] = await Promise.all([
      readTokenBalance(this.#rpc, this.#wallet, pair.baseToken, this.#wallet),
      readTokenBalance(this.#rpc, this.#wallet, pair.quoteToken, this.#wallet),
      this.#rpc.balance(this.#wallet),
    ]);
    return { base, quote, native };
  }

  /** Each token's balance and the native balance, asked together (one batch); a token that fails is named. */
  async walletBalances(tokens: readonly string[]): Promise<WalletBalances> {
    const rpc = this.#gathered;
    const [native, ...reads] = await Promise.allSettled([
      rpc.balance(this.#wallet),
      ...tokens.map((t) => readTokenBalance(rpc, this.#wallet, t, this.#wallet)),
    ]);
    if (native?.status === 'rejected') throw native.reason;
    const amounts = new Map<string, bigint>();
    const failed = new Map<string, Error>();
    for (const [i, r] of reads.entries()) {
      const token = tokens[i] as string;
      if (r.status === 'fulfilled') amounts.set(token, r.value);
      else failed.set(token, r.reason instanceof Error ? r.reason : new Error(String(r.reason)));
    }
    return { tokens: amounts, failed, native: (native as PromiseFulfilledResult<bigint>).value };
  }

  /** Base, quote and native balances at one block: `at`, or the latest. */
  async balancesAt(pair: PairBinding, at: bigint | null): Promise<BalancesAt> {
    const height = at ?? (await this.#latestBlock());
    const [base, quote, native] = await Promise.all([
      readTokenBalance(this.#rpc, this.#wallet, pair.baseToken, this.#wallet, height),
      readTokenBalance(this.#rpc, this.#wallet, pair.quoteToken, this.#wallet, height),
      this.#rpc.balance(this.#wallet, height),
    ]);
    return { base, quote, native, height };
  }

  async #latestBlock(): Promise<bigint> {
    const head = await this.#rpc.block('latest');
    if (head === null) throw rpcFailure('eth_getBlockByNumber', 'malformed', 'the node has no latest block');
    return head.number;
  }

  async allowance(pair: PairBinding, token: TokenRole): Promise<Allowance> {
    const amount = await readTokenAllowance(
      this.#rpc,
      this.#wallet,
      token === 'base' ? pair.baseToken : pair.quoteToken,
      this.#wallet,
      pair.orderBook,
    );
    return { amount, expiresAtLedger: null };
  }

  /** The whitelist's record of the wallet, when the order book names a whitelist that answers `readClientInfo`. */
  async clientInfo(pair: PairBinding): Promise<ClientInfo | null> {
    const config = await this.#config(pair);
    if (config.whitelist.toLowerCase() === ZERO_ADDRESS) return null;
    return readClientInfo(this.#rpc, this.#wallet, config.whitelist, this.#wallet);
  }

  /** Throws when the whitelist refuses the wallet something; warns when it holds no native token for fees. */
  /** Every pair's check asks at start, all at once: their reads leave in one batch each (`#gathered`). */
  async ensureReady(pair: PairBinding): Promise<void> {
    const rpc = this.#gathered;
    const config = await this.#config(pair, rpc);
    if (config.whitelist.toLowerCase() === ZERO_ADDRESS) {
      this.#logger.warn({ pairId: pair.pairId }, 'the order book names no whitelist; registry check skipped');
      return;
    }
    let info: ClientInfo;
    try {
      info = await readClientInfo(rpc, this.#wallet, config.whitelist, this.#wallet);
    } catch (e) {
      // A whitelist of another interface than the sandbox's (readClientInfo is not in the specification) is
      // not a reason to refuse trading; a node that does not answer is.
      if (rpcFailureOf(e)?.kind === 'transport') throw e;
      this.#logger.warn(
        { pairId: pair.pairId, whitelist: config.whitelist, err: e },
        'the whitelist does not answer readClientInfo; registry check skipped',
      );
      return;
    }
    const refusal = whitelistRefusal(info, pair, this.#wallet);
    if (refusal !== null) throw refusal;
    const native = await rpc.balance(this.#wallet);
    if (native === 0n) this.#logger.warn({ pairId: pair.pairId }, 'the wallet holds no native token to pay fees');
  }

  /** A cancellation simulated at the latest block: a revert `OrderBook_OrderNotFound` says the order is gone. */
  async probeOrder(pair: PairBinding, side: Side, orderId: bigint): Promise<OrderProbe> {
    const height = await this.#latestBlock();
    const call = {
      from: this.#wallet,
      to: pair.orderBook,
      data: cancelCalldata({ kind: 'cancel', pair, side, orderId }),
    };
    try {
      await this.#rpc.call(call, height);
      return { onBook: true, height };
    } catch (e) {
      const f = rpcFailureOf(e);
      if (f === null || f.kind !== 'rpc' || f.data === null)
        return { onBook: null, height, reason: e instanceof Error ? e.message : String(e) };
      const error = revertError(f.data, { pair: pair.pairId, orderId: orderId.toString(), probe: true });
      return error.code === 'E_VENUE_ORDER_NOT_FOUND'
        ? { onBook: false, height }
        : { onBook: null, height, reason: `${error.code}: ${error.message}` };
    }
  }
}

/** What the whitelist's record refuses the wallet on the pair, as one error naming every refusal; null if nothing. */
function whitelistRefusal(info: ClientInfo, pair: PairBinding, wallet: string): DltError | null {
  const missing: DltError[] = [];
  const details = { pairId: pair.pairId, wallet, clientInfo: { ...info, id: info.id.toString() } };
  const none = info.id === 0n && !info.canBuy && !info.canSell && !info.canCancel;
  if (none)
    missing.push(
      new DltError('E_VENUE_CLIENT_NOT_FOUND', `wallet ${wallet} is not in the venue's whitelist`, { details }),
    );
  else {
    if (!info.canBuy)
      missing.push(
        new DltError('E_VENUE_NOT_ALLOWED_TO_BUY', `wallet ${wallet} may not buy on ${pair.symbol}`, { details }),
      );
    if (!info.canSell)
      missing.push(
        new DltError('E_VENUE_NOT_ALLOWED_TO_SELL', `wallet ${wallet} may not sell on ${pair.symbol}`, { details }),
      );
    if (!info.canCancel)
      missing.push(
        new DltError('E_VENUE_NOT_ALLOWED_TO_CANCEL', `wallet ${wallet} may not cancel on ${pair.symbol}`, { details }),
      );
  }
  const first = missing[0];
  if (first === undefined) return null;
  return new DltError(first.code, missing.map((m) => m.message).join('; '), {
    details: { ...details, missing: missing.map((m) => m.code) },
  });
}
