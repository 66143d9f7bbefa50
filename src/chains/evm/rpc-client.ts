/**
 * Typed chain A reads and writes over a JSON-RPC transport. Every field used is checked: a reply of the wrong
 * shape is an `E_CHAIN_RPC` error of kind `malformed` (counted), never a crash or a silently wrong number.
 * Logs are returned untyped and checked one by one by `log-decoder.ts`, so one bad log does not cost the rest.
 */
import type { Logger } from '../../telemetry/logger.ts';
import { rpcFailure, rpcFailureOf, type RpcTransport } from './json-rpc.ts';
import type { EvmMetrics } from './metrics.ts';

export interface BlockHeader {
  readonly number: bigint;
  readonly hash: string;
  readonly timestampMs: number;
}

export interface Receipt {
  readonly txHash: string;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly status: 0 | 1;
  readonly gasUsed: bigint;
  /** Price per gas actually paid (EIP-1559 receipts carry it); null when the node leaves it out. */
  readonly effectiveGasPrice?: bigint | null;
  readonly logs: readonly unknown[];
}

export interface CallRequest {
  readonly from: string;
  readonly to: string;
  readonly data: string;
  readonly value?: bigint;
  readonly gas?: bigint;
}

export interface LogFilter {
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
  readonly address: readonly string[];
  readonly topics: readonly (string | readonly string[] | null)[];
}

/** One block's logs by its hash (EIP-234): the node answers for that block or fails, never for a replacement. */
export interface BlockLogFilter {
  readonly blockHash: string;
  readonly address: readonly string[];
  readonly topics: readonly (string | readonly string[] | null)[];
}

export interface FeeHistory {
  /** Base fee of each block asked for, then of the next block (the last entry). */
  readonly baseFees: readonly bigint[];
}

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

export function quantity(v: unknown, method: string, what: string): bigint {
  if (typeof v !== 'string' || !QUANTITY.test(v))
    throw rpcFailure(method, 'malformed', `${what} is not a hex quantity: ${JSON.stringify(v)?.slice(0, 80)}`);
  return BigInt(v);
}

function hash(v: unknown, method: string, what: string): string {
  if (typeof v !== 'string' || !HASH.test(v))
    throw rpcFailure(method, 'malformed', `${what} is not a 32-byte hash: ${JSON.stringify(v)?.slice(0, 80)}`);
  return v.toLowerCase();
}

function object(v: unknown, method: string, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw rpcFailure(method, 'malformed', `${what} is not an object`);
  return v as Record<string, unknown>;
}

export function toQuantity(v: bigint): string {
  return `0x${v.toString(16)}`;
}

export class EvmRpc {
  readonly #transport: RpcTransport;
  readonly #metrics: EvmMetrics | null;
  readonly #logger: Logger;

  constructor(transport: RpcTransport, metrics: EvmMetrics | null, logger: Logger) {
    this.#transport = transport;
    this.#metrics = metrics;
    this.#logger = logger;
  }

  /** The same reads and counts over another transport (one that gathers calls into batches). */
  withTransport(transport: RpcTransport): EvmRpc {
    return new EvmRpc(transport, this.#metrics, this.#logger);
  }

  /** One call; a failure is counted by method and kind (`revert` when the node answered with revert data) and rethrown. */
  async request(method: string, params: readonly unknown[]): Promise<unknown> {
    try {
      return await this.#transport(method, params);
    } catch (e) {
      this.#count(method, e);
      throw e;
    }
  }

  #count(method: string, e: unknown): void {
    const f = rpcFailureOf(e);
    const kind = f === null ? 'transport' : f.data !== null ? 'revert' : f.kind;
    this.#metrics?.rpcErrors.inc({ method, kind });
    if (kind === 'malformed') {
      this.#metrics?.malformed.inc({ source: method });
      this.#logger.warn({ method, err: e }, 'chain A node answered something unreadable; skipped');
    }
  }

  /** Runs a typed reader over a result; a reader's `malformed` error is counted like a failed call. */
  async #read<T>(method: string, params: readonly unknown[], reader: (v: unknown) => T): Promise<T> {
    const result = await this.request(method, params);
    try {
      return reader(result);
    } catch (e) {
      this.#count(method, e);
      throw e;
    }
  }

  chainId(): Promise<bigint> {
    return this.#read('eth_chainId', [], (v) => quantity(v, 'eth_chainId', 'chain id'));
  }

  /** A block header by number or `latest`; null when the node does not have it (yet). */
  block(tag: bigint | 'latest'): Promise<BlockHeader | null> {
    const m = 'eth_getBlockByNumber';
    return this.#read(m, [typeof tag === 'bigint' ? toQuantity(tag) : tag, false], (v) => {
      if (v === null) return null;
      const b = object(v, m, 'block');
      const seconds = quantity(b.timestamp, m, 'block timestamp');
      return {
        number: quantity(b.number, m, 'block number'),
        hash: hash(b.hash, m, 'block hash'),
        timestampMs: Number(seconds) * 1000,
      };
    });
  }

  /** The number of the node's latest block. */
  blockNumber(): Promise<bigint> {
    return this.#read('eth_blockNumber', [], (v) => quantity(v, 'eth_blockNumber', 'block number'));
  }

  transactionCount(address: string, tag: 'latest' | 'pending'): Promise<bigint> {
    return this.#read('eth_getTransactionCount', [address, tag], (v) =>
      quantity(v, 'eth_getTransactionCount', 'nonce'),
    );
  }

  receipt(txHash: string): Promise<Receipt | null> {
    const m = 'eth_getTransactionReceipt';
    return this.#read(m, [txHash], (v) => {
      if (v === null) return null;
      const r = object(v, m, 'receipt');
      const status = quantity(r.status, m, 'receipt status');
      if (status > 1n) throw rpcFailure(m, 'malformed', `receipt status ${status}`);
      if (!Array.isArray(r.logs)) throw rpcFailure(m, 'malformed', 'receipt logs are not an array');
      return {
        txHash: hash(r.transactionHash, m, 'receipt transaction hash'),
        blockNumber: quantity(r.blockNumber, m, 'receipt block number'),
        blockHash: hash(r.blockHash, m, 'receipt block hash'),
        status: status === 1n ? 1 : 0,
        gasUsed: quantity(r.gasUsed, m, 'receipt gas used'),
        effectiveGasPrice:
          r.effectiveGasPrice === undefined || r.effectiveGasPrice === null
            ? null
            : quantity(r.effectiveGasPrice, m, 'receipt effective gas price'),
        logs: r.logs as unknown[],
      };
    });
  }

  /** `eth_call`; a revert rejects with an `E_CHAIN_RPC` error whose details carry the revert data. */
  call(tx: CallRequest, tag: bigint | 'latest' | 'pending' = 'latest'): Promise<string> {
    return this.#read('eth_call', [callObject(tx), typeof tag === 'bigint' ? toQuantity(tag) : tag], (v) => {
      if (typeof v !== 'string' || !DATA.test(v))
        throw rpcFailure('eth_call', 'malformed', 'call result is not hex data');
      return v;
    });
  }

  estimateGas(tx: CallRequest): Promise<bigint> {
    return this.#read('eth_estimateGas', [callObject(tx)], (v) => quantity(v, 'eth_estimateGas', 'gas estimate'));
  }

  sendRawTransaction(raw: string): Promise<string> {
    return this.#read('eth_sendRawTransaction', [raw], (v) => hash(v, 'eth_sendRawTransaction', 'transaction hash'));
  }

  balance(address: string, tag: bigint | 'latest' = 'latest'): Promise<bigint> {
    return this.#read('eth_getBalance', [address, typeof tag === 'bigint' ? toQuantity(tag) : tag], (v) =>
      quantity(v, 'eth_getBalance', 'balance'),
    );
  }

  /** Logs of a bounded range, unchecked (each is checked by the decoder). */
  logs(filter: LogFilter): Promise<unknown[]> {
    const params = {
      fromBlock: toQuantity(filter.fromBlock),
      toBlock: toQuantity(filter.toBlock),
      address: filter.address,
      topics: filter.topics,
    };
    return this.#read('eth_getLogs', [params], (v) => {
      if (!Array.isArray(v)) throw rpcFailure('eth_getLogs', 'malformed', 'logs are not an array');
      return v as unknown[];
    });
  }

  /** Logs of one block by hash, unchecked like `logs`. */
  blockLogs(filter: BlockLogFilter): Promise<unknown[]> {
    return this.#read(
      'eth_getLogs',
      [{ blockHash: filter.blockHash, address: filter.address, topics: filter.topics }],
      (v) => {
        if (!Array.isArray(v)) throw rpcFailure('eth_getLogs', 'malformed', 'logs are not an array');
        return v as unknown[];
      },
    );
  }

  feeHistory(blocks: number): Promise<FeeHistory> {
    const m = 'eth_feeHistory';
    return this.#read(m, [toQuantity(BigInt(blocks)), 'latest', []], (v) => {
      const h = object(v, m, 'fee history');
      if (!Array.isArray(h.baseFeePerGas) || h.baseFeePerGas.length === 0)
        throw rpcFailure(m, 'malformed', 'baseFeePerGas is not a list');
      return { baseFees: h.baseFeePerGas.map((x) => quantity(x, m, 'base fee')) };
    });
  }

  maxPriorityFeePerGas(): Promise<bigint> {
    return this.#read('eth_maxPriorityFeePerGas', [], (v) => quantity(v, 'eth_maxPriorityFeePerGas', 'priority fee'));
  }
}

function callObject(tx: CallRequest): Record<string, string> {
  return {
    from: tx.from,
    to: tx.to,
    data: tx.data,
    ...(tx.value === undefined ? {} : { value: toQuantity(tx.value) }),
    ...(tx.gas === undefined ? {} : { gas: toQuantity(tx.gas) }),
  };
}
