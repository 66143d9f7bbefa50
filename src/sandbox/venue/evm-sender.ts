/**
 * Signs and sends chain A transactions for one sandbox account (the operator, a simulated trader) with
 * nonces allocated locally in call order, so several transactions can wait for the same block; each call
 * resolves with its receipt. Fees are fixed caps (a local node's base fee is tiny), which saves a fee query
 * per transaction. After a refused send the nonce is read again from the node.
 */
import { Wallet } from 'ethers';
import { DltError } from '../../core/errors.ts';
import { rpc } from '../evm/node.ts';

export interface EvmReceipt {
  readonly hash: string;
  readonly status: boolean;
  readonly blockNumber: number;
  readonly logs: readonly { readonly address: string; readonly topics: string[]; readonly data: string }[];
}

export interface EvmSenderOptions {
  readonly rpcUrl: string;
  readonly privateKey: string;
  readonly chainId: number;
  /** How often a pending transaction's receipt is asked for. */
  readonly pollMs: number;
  /** Give up waiting for a receipt after this long; default 60 s. */
  readonly receiptTimeoutMs?: number;
}

const MAX_FEE = 50_000_000_000n;
const PRIORITY_FEE = 1_000_000_000n;

export class EvmSender {
  readonly address: string;
  readonly #options: EvmSenderOptions;
  readonly #wallet: Wallet;
  #nonce: number | undefined;
  #submitting: Promise<unknown> = Promise.resolve();
  #stopped = false;

  constructor(options: EvmSenderOptions) {
    this.#options = options;
    this.#wallet = new Wallet(options.privateKey);
    this.address = this.#wallet.address;
  }

  /** Stops waiting for receipts (pending calls reject). */
  stop(): void {
    this.#stopped = true;
  }

  /** Sends `data` to `to`; resolves with the receipt (a revert is `status: false`, not a throw). */
  async send(to: string, data: string, gasLimit: bigint): Promise<EvmReceipt> {
    // Submissions go out one after the other, in nonce order (a node refuses a gap while automining);
    // only the waits for receipts overlap.
    const submitted = this.#submitting.then(() => this.#submit(to, data, gasLimit));
    this.#submitting = submitted.catch(() => undefined);
    return this.#receipt(await submitted);
  }

  async #submit(to: string, data: string, gasLimit: bigint): Promise<string> {
    this.#nonce ??= Number(
      BigInt((await rpc(this.#options.rpcUrl, 'eth_getTransactionCount', [this.address, 'pending'])) as string),
    );
    const nonce = this.#nonce;
    const raw = await this.#wallet.signTransaction({
      type: 2,
      chainId: this.#options.chainId,
      to,
      data,
      nonce,
      gasLimit,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: PRIORITY_FEE,
    });
    try {
      const hash = (await rpc(this.#options.rpcUrl, 'eth_sendRawTransaction', [raw])) as string;
      this.#nonce = nonce + 1;
      return hash;
    } catch (e) {
      this.#nonce = undefined;
      throw new DltError(
        'E_CHAIN_TX_REFUSED',
        `chain A node refused the transaction of ${this.address}: ${(e as Error).message}`,
        { cause: e, details: { nonce } },
      );
    }
  }

  async #receipt(hash: string): Promise<EvmReceipt> {
    const deadline = performance.now() + (this.#options.receiptTimeoutMs ?? 60_000);
    while (!this.#stopped && performance.now() < deadline) {
      const r = (await rpc(this.#options.rpcUrl, 'eth_getTransactionReceipt', [hash])) as Record<
        string,
        unknown
      > | null;
      if (r !== null) {
        return {
          hash,
          status: r.status === '0x1',
          blockNumber: Number(BigInt(r.blockNumber as string)),
          logs: r.logs as EvmReceipt['logs'],
        };
      }
      await new Promise((resolve) => setTimeout(resolve, this.#options.pollMs));
    }
    throw new DltError('E_SANDBOX', `no receipt for ${hash} ${this.#stopped ? '(sender stopped)' : 'in time'}`, {
      details: { part: 'evm-sender', hash },
    });
  }
}

/** The current block number. */
export async function blockNumber(rpcUrl: string): Promise<number> {
  return Number(BigInt((await rpc(rpcUrl, 'eth_blockNumber', [])) as string));
}

/** An `eth_call` at the latest block. */
export async function ethCall(rpcUrl: string, to: string, data: string): Promise<string> {
  return (await rpc(rpcUrl, 'eth_call', [{ to, data }, 'latest'])) as string;
}
