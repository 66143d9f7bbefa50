/**
 * Test sandboxes and ordinary clients of them: a sandbox on free ports with fast blocks and ledgers (the
 * simulated market off unless asked for), and the participant's test wallets trading through the public
 * chain endpoints of the manifest: ethers on chain A, @stellar/stellar-sdk on chain B, as any client would.
 */
import {
  Address,
  Contract as StellarContract,
  Keypair,
  TransactionBuilder,
  nativeToScVal,
  rpc,
  scValToNative,
  xdr,
} from '@stellar/stellar-sdk';
import { Contract, JsonRpcProvider, MaxUint256, Network, NonceManager, Wallet, type TransactionReceipt } from 'ethers';
import { Decimal } from '../../../../src/core/decimal.ts';
import { encodeOrder } from '../../../../src/core/encoding/order-codec.ts';
import type { ReportingData } from '../../../../src/core/encoding/reporting.ts';
import { DEFAULT_ORDER_OPTIONS, type OrderOptions, type Side } from '../../../../src/core/order-terms.ts';
import { pairScales } from '../../../../src/core/pair.ts';
import { loadArtifacts } from '../../../../src/sandbox/evm/compile.ts';
import { decodeBookEvent } from '../../../../src/sandbox/wasm/contracts/book-events.ts';
import { mergeSettings } from '../../../../src/sandbox/venue/options.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../../src/sandbox/venue/start.ts';

export const FAST_SANDBOX = {
  ports: { api: 0, evm: 0, wasm: 0 },
  evm: { blockTimeMs: 250 },
  wasm: { ledgerIntervalMs: 250 },
  manifest: false,
  flow: { enabled: false },
  api: { orderLagMs: 300, wsSnapshotIntervalMs: 1000, wsCoalesceMs: 50 },
  indexer: { pollMs: 50 },
  trading: { tickMs: 100 },
} as const;

export function startTestSandbox(over: Record<string, unknown> = {}): Promise<Sandbox> {
  return startSandbox(mergeSettings(FAST_SANDBOX, over) as SandboxOptions);
}

/** Polls a condition (something real runs meanwhile) until it holds or the time is up. */
export async function until<T>(
  probe: () => Promise<T> | T,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (performance.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; last value ${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

type ManifestPair = Sandbox['manifest']['pairs'][number];
type ManifestWallet = Sandbox['manifest']['wallets'][number];

/** What the bot writes into every order besides its terms: its cross identifier and reporting values. */
export interface OrderMarks {
  readonly crossId?: bigint;
  readonly reporting?: ReportingData;
}

export interface Placed {
  readonly orderId: bigint;
  /** Chain A block or chain B ledger that holds the order. */
  readonly at: number;
}

export class Traders {
  readonly sb: Sandbox;
  readonly provider: JsonRpcProvider;
  readonly server: rpc.Server;
  readonly #abi = loadArtifacts().contracts;
  readonly #signers = new Map<string, NonceManager>();

  constructor(sb: Sandbox) {
    this.sb = sb;
    this.provider = new JsonRpcProvider(sb.manifest.chains.evm.rpcUrl, Network.from(sb.manifest.chains.evm.chainId), {
      staticNetwork: true,
      batchMaxCount: 1,
      cacheTimeout: -1,
      pollingInterval: 50,
    });
    this.server = new rpc.Server(sb.manifest.chains.wasm.rpcUrl, { allowHttp: true });
  }

  close(): void {
    this.provider.destroy();
  }

  pair(symbol: string): ManifestPair {
    const p = this.sb.manifest.pairs.find((x) => x.symbol === symbol);
    if (p === undefined) throw new Error(`no pair ${symbol}`);
    return p;
  }

  wallet(name: string): ManifestWallet {
    const w = this.sb.manifest.wallets.find((x) => x.name === name);
    if (w === undefined) throw new Error(`no wallet ${name}`);
    return w;
  }

  #scales(symbol: string) {
    const p = this.sb.state.pairBySymbol(symbol);
    if (p === undefined) throw new Error(`no pair ${symbol}`);
    return pairScales(p.record);
  }

  // --- chain A --------------------------------------------------------------------------------------

  evmSigner(name: string): NonceManager {
    let s = this.#signers.get(name);
    if (s === undefined) {
      s = new NonceManager(new Wallet(this.wallet(name).key, this.provider));
      this.#signers.set(name, s);
    }
    return s;
  }

  book(symbol: string, runner: JsonRpcProvider | NonceManager = this.provider): Contract {
    return new Contract(this.pair(symbol).orderBook.hex, this.#abi.OrderBook.abi as never, runner);
  }

  /** Approves every chain A order book for both its tokens, without limit. */
  async evmApproveAll(name: string): Promise<void> {
    const signer = this.evmSigner(name);
    const sent = [];
    for (const p of this.sb.manifest.pairs.filter((x) => x.chain === 'evm')) {
      for (const token of [p.baseToken.hex, p.quoteToken.hex]) {
        const c = new Contract(token, this.#abi.EMoneyToken.abi as never, signer);
        sent.push(await c.getFunction('approve').send(p.orderBook.hex, MaxUint256, { gasLimit: 100_000 }));
      }
    }
    await Promise.all(sent.map((tx) => tx.wait()));
  }

  /** An ERC-20 transfer of raw native units between two sandbox wallets (a deposit, seen from the receiver). */
  async evmTransfer(from: string, token: string, to: string, amount: bigint): Promise<void> {
    const c = new Contract(token, this.#abi.EMoneyToken.abi as never, this.evmSigner(from));
    const receipt = await (await c.getFunction('transfer').send(to, amount, { gasLimit: 100_000 })).wait();
    if (receipt?.status !== 1) throw new Error(`transfer of ${amount} ${token} failed`);
  }

  async #orderId(receipt: TransactionReceipt | null, symbol: string): Promise<Placed> {
    if (receipt === null || receipt.status !== 1) throw new Error(`chain A order on ${symbol} failed`);
    const book = this.book(symbol);
    for (const log of receipt.logs) {
      const parsed = book.interface.parseLog(log);
      if (parsed?.name === 'OrderReceived') return { orderId: parsed.args[1] as bigint, at: receipt.blockNumber };
    }
    throw new Error('no OrderReceived in the receipt');
  }

  /** Sends a v1 limit order (with the bot's cross identifier and reporting values when given) and waits for it. */
  async evmOrder(
    name: string,
    symbol: string,
    side: Side,
    quantity: string,
    price: string,
    marks: OrderMarks = {},
  ): Promise<Placed> {
    return (await this.evmSend(name, symbol, side, quantity, price, marks))();
  }

  /** Sends a v1 limit order and returns once sent (for bursts), with a promise of the outcome. */
  async evmSend(
    name: string,
    symbol: string,
    side: Side,
    quantity: string,
    price: string,
    marks: OrderMarks = {},
  ): Promise<() => Promise<Placed>> {
    const o = encodeOrder(
      'evm',
      { ...DEFAULT_ORDER_OPTIONS, side, quantity: new Decimal(quantity), price: new Decimal(price) },
      this.#scales(symbol),
      marks.crossId,
      marks.reporting,
    );
    const fn = side === 'buy' ? 'newBuyOrder' : 'newSellOrder';
    const tx = await this.book(symbol, this.evmSigner(name))
      .getFunction(fn)
      .send(o.orderData, o.reportingData, o.crossIdentifier, { gasLimit: 3_000_000 });
    return async () => this.#orderId(await tx.wait(), symbol);
  }

  async evmCancel(name: string, symbol: string, side: Side, orderId: bigint): Promise<number> {
    const tx = await this.book(symbol, this.evmSigner(name))
      .getFunction(side === 'buy' ? 'cancelBuyOrder' : 'cancelSellOrder')
      .send(orderId, { gasLimit: 300_000 });
    const receipt = await tx.wait();
    if (receipt?.status !== 1) throw new Error('cancel failed');
    return receipt.blockNumber;
  }

  // --- chain B --------------------------------------------------------------------------------------

  /** Simulates, signs, sends one call and waits for its outcome; returns the ledger and the book events. */
  async wasmCall(
    name: string,
    contract: string,
    fn: string,
    args: xdr.ScVal[],
  ): Promise<{ ledger: number; events: ReturnType<typeof decodeBookEvent>[] }> {
    const kp = Keypair.fromSecret(this.wallet(name).key);
    const account = await this.server.getAccount(kp.publicKey());
    const raw = new TransactionBuilder(account, {
      fee: '1000',
      networkPassphrase: this.sb.manifest.chains.wasm.networkPassphrase,
    })
      .addOperation(new StellarContract(contract).call(fn, ...args))
      .setTimeout(60)
      .build();
    const tx = await this.server.prepareTransaction(raw);
    tx.sign(kp);
    const sent = await this.server.sendTransaction(tx);
    if (sent.status !== 'PENDING') throw new Error(`sendTransaction: ${sent.status}`);
    const res = await until(
      () => this.server.getTransaction(sent.hash),
      (r) => r.status !== 'NOT_FOUND',
      `transaction ${sent.hash}`,
    );
    if (res.status !== 'SUCCESS') throw new Error(`${fn} failed`);
    const events = res.events.contractEventsXdr.flat().map((e) => {
      const w = e.toXdrObject();
      return decodeBookEvent(w.body.v0.topics, w.body.v0.data, { base: '', quote: '' });
    });
    return { ledger: res.ledger, events };
  }

  /** A read-only order book call, simulated (as a client reads contract views). */
  async wasmView(symbol: string, fn: string): Promise<unknown> {
    const kp = Keypair.fromSecret(this.wallet('wasm-trader').key);
    const account = await this.server.getAccount(kp.publicKey());
    const tx = new TransactionBuilder(account, {
      fee: '100',
      networkPassphrase: this.sb.manifest.chains.wasm.networkPassphrase,
    })
      .addOperation(new StellarContract(this.pair(symbol).orderBook.strkey as string).call(fn))
      .setTimeout(60)
      .build();
    const sim = await this.server.simulateTransaction(tx);
    if (!rpc.Api.isSimulationSuccess(sim) || sim.result === undefined) throw new Error(`${fn} simulation failed`);
    return scValToNative(sim.result.retval);
  }

  async wasmApprove(name: string, symbol: string): Promise<void> {
    const p = this.pair(symbol);
    const who = Address.fromString(this.wallet(name).address).toScVal();
    const expires = (await this.server.getLatestLedger()).sequence + 100_000;
    for (const token of [p.baseToken.strkey as string, p.quoteToken.strkey as string]) {
      await this.wasmCall(name, token, 'approve', [
        who,
        Address.fromString(p.orderBook.strkey as string).toScVal(),
        nativeToScVal(10n ** 17n, { type: 'i128' }),
        nativeToScVal(expires, { type: 'u32' }),
      ]);
    }
  }

  async wasmOrder(
    name: string,
    symbol: string,
    side: Side,
    quantity: string,
    price: string,
    options: Partial<OrderOptions> = {},
    marks: OrderMarks = {},
  ): Promise<Placed> {
    const o = encodeOrder(
      'wasm',
      { ...DEFAULT_ORDER_OPTIONS, ...options, side, quantity: new Decimal(quantity), price: new Decimal(price) },
      this.#scales(symbol),
      marks.crossId,
      marks.reporting,
    );
    const out = await this.wasmCall(
      name,
      this.pair(symbol).orderBook.strkey as string,
      side === 'buy' ? 'new_buy_order' : 'new_sell_order',
      [
        Address.fromString(this.wallet(name).address).toScVal(),
        xdr.ScVal.scvBytes(Buffer.from(o.orderData)),
        xdr.ScVal.scvBytes(Buffer.from(o.crossIdentifier)),
        xdr.ScVal.scvBytes(Buffer.from(o.reportingData)),
      ],
    );
    const received = out.events.find((e) => e?.type === 'OrderReceived');
    if (received === undefined) throw new Error('no OrderReceived event');
    return { orderId: received.orderId, at: out.ledger };
  }

  async wasmCancel(name: string, symbol: string, side: Side, orderId: bigint): Promise<number> {
    const out = await this.wasmCall(
      name,
      this.pair(symbol).orderBook.strkey as string,
      side === 'buy' ? 'cancel_buy_order' : 'cancel_sell_order',
      [Address.fromString(this.wallet(name).address).toScVal(), nativeToScVal(orderId, { type: 'u64' })],
    );
    return out.ledger;
  }
}

// oxlint-disable-next-line typescript/no-explicit-any -- tests read JSON answers field by field
export type Json = any;

/** GET below the REST base; returns status, headers and the parsed body. */
export async function get(
  sb: Sandbox,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${sb.manifest.venue.restUrl}${path}`, { headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** A control call under `/sandbox`. */
export async function control(
  sb: Sandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${sb.manifest.venue.controlUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

export const bearer = (sb: Sandbox) => ({ authorization: `Bearer ${sb.manifest.venue.accessToken}` });
