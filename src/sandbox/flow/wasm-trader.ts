/**
 * A simulated trader's hands on chain B: an ordinary `@stellar/stellar-sdk` client of the emulator's RPC that
 * builds an order book call, simulates and assembles it (`prepareTransaction`), signs it with its own key,
 * sends it and waits for the outcome. One transaction at a time per account, as the network requires; the
 * account's sequence number is read fresh for every transaction.
 */
import { Address, Contract, Keypair, TransactionBuilder, nativeToScVal, rpc, xdr } from '@stellar/stellar-sdk';
import { encodeOrder } from '../../core/encoding/order-codec.ts';
import { DEFAULT_ORDER_OPTIONS, type OrderOptions, type Side } from '../../core/order-terms.ts';
import type { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import type { PairScales } from '../../core/units.ts';

export interface WasmOutcome {
  readonly status: 'SUCCESS' | 'FAILED';
  readonly ledger: number;
}

export interface WasmTraderOptions {
  readonly server: rpc.Server;
  readonly secret: string;
  readonly passphrase: string;
  readonly pollMs: number;
  /** Give up waiting for inclusion after this long; default 60 s. */
  readonly timeoutMs?: number;
}

export class WasmTrader {
  readonly keypair: Keypair;
  readonly #options: WasmTraderOptions;
  #stopped = false;

  constructor(options: WasmTraderOptions) {
    this.#options = options;
    this.keypair = Keypair.fromSecret(options.secret);
  }

  get address(): string {
    return this.keypair.publicKey();
  }

  stop(): void {
    this.#stopped = true;
  }

  /** Simulates, signs and sends a call; resolves with the hash once the node accepted it (PENDING). */
  async send(contract: string, fn: string, args: xdr.ScVal[]): Promise<string> {
    const account = await this.#options.server.getAccount(this.address);
    const raw = new TransactionBuilder(account, { fee: '1000', networkPassphrase: this.#options.passphrase })
      .addOperation(new Contract(contract).call(fn, ...args))
      .setTimeout(120)
      .build();
    const tx = await this.#options.server.prepareTransaction(raw);
    tx.sign(this.keypair);
    const sent = await this.#options.server.sendTransaction(tx);
    if (sent.status !== 'PENDING') {
      throw new DltError('E_CHAIN_TX_REFUSED', `chain B node answered ${sent.status} to ${fn} from ${this.address}`, {
        details: { status: sent.status },
      });
    }
    return sent.hash;
  }

  /** Waits for a sent transaction's outcome. */
  async outcome(hash: string): Promise<WasmOutcome> {
    const deadline = performance.now() + (this.#options.timeoutMs ?? 60_000);
    while (!this.#stopped && performance.now() < deadline) {
      const r = await this.#options.server.getTransaction(hash);
      if (r.status === 'SUCCESS' || r.status === 'FAILED') return { status: r.status, ledger: r.ledger };
      await new Promise((resolve) => setTimeout(resolve, this.#options.pollMs));
    }
    throw new DltError(
      'E_SANDBOX',
      `no outcome for chain B transaction ${hash} ${this.#stopped ? '(trader stopped)' : 'in time'}`,
      { details: { part: 'wasm-trader', hash } },
    );
  }

  /** `new_buy_order` / `new_sell_order` with the core's order encoding; sends it and returns the hash. */
  sendOrder(
    orderBook: string,
    scales: PairScales,
    side: Side,
    quantity: Decimal,
    price: Decimal,
    options: Partial<OrderOptions> = {},
  ): Promise<string> {
    const o = encodeOrder('wasm', { ...DEFAULT_ORDER_OPTIONS, ...options, side, quantity, price }, scales);
    return this.send(orderBook, side === 'buy' ? 'new_buy_order' : 'new_sell_order', [
      Address.fromString(this.address).toScVal(),
      xdr.ScVal.scvBytes(Buffer.from(o.orderData)),
      xdr.ScVal.scvBytes(Buffer.from(o.crossIdentifier)),
      xdr.ScVal.scvBytes(Buffer.from(o.reportingData)),
    ]);
  }

  sendCancel(orderBook: string, side: Side, orderId: bigint): Promise<string> {
    return this.send(orderBook, side === 'buy' ? 'cancel_buy_order' : 'cancel_sell_order', [
      Address.fromString(this.address).toScVal(),
      nativeToScVal(orderId, { type: 'u64' }),
    ]);
  }
}
