/**
 * The end-to-end test's own view of the sandbox's two chains, never the bot's code: the resting orders of
 * the bot's wallets read from the order books (chain A through the contract views, chain B from the
 * emulator's contract state), every order book event of those wallets (chain A logs, chain B events as each
 * ledger closes) with the block or ledger that carried it, and every failed transaction the wallets sent.
 */
import { Interface, toQuantity } from 'ethers';
import { contractAt, sandboxProvider } from '../../../src/sandbox/evm/chain.ts';
import { loadArtifacts } from '../../../src/sandbox/evm/compile.ts';
import { rpc } from '../../../src/sandbox/evm/node.ts';
import { toBookEvent } from '../../../src/sandbox/api/evm-follower.ts';
import type { BookEvent } from '../../../src/sandbox/matching/types.ts';
import type { Sandbox } from '../../../src/sandbox/venue/sandbox.ts';
import { decodeBookEvent } from '../../../src/sandbox/wasm/contracts/book-events.ts';
import { read } from '../../../src/sandbox/wasm/scval.ts';
import { until } from './poll.ts';

export type Chain = 'evm' | 'wasm';

export interface RestingOrder {
  readonly pairId: string;
  readonly orderId: bigint;
  readonly side: 'buy' | 'sell';
  readonly price: bigint;
  readonly remaining: bigint;
  /** The cross identifier the order was placed with (the bot's client order id). */
  readonly crossId: bigint;
}

export interface SeenEvent {
  readonly chain: Chain;
  readonly pairId: string;
  /** Block number (chain A) or ledger sequence (chain B). */
  readonly at: number;
  readonly event: BookEvent;
}

export interface FailedTx {
  readonly chain: Chain;
  readonly at: number;
  /** The order book's pair, when the transaction called one. */
  readonly pairId: string | null;
  /** The contract function, when known. */
  readonly call: string;
  /** The order a cancellation named. */
  readonly orderId: bigint | null;
}

/**
 * `[owner, decision]` of an order's reporting data, read as the venue documents it: chain A the ABI tuple
 * (uint32, uint32), chain B one big-endian 256-bit value whose low 64 bits are `owner << 32 | decision`.
 */
export function reportingIds(chain: Chain, bytes: Uint8Array): [number, number] {
  const n = bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  if (chain === 'wasm') return [Number((n >> 32n) & 0xffffffffn), Number(n & 0xffffffffn)];
  return [Number((n >> 256n) & 0xffffffffn), Number(n & 0xffffffffn)];
}

type ManifestPair = Sandbox['manifest']['pairs'][number];

const SELECTORS = new Interface(loadArtifacts().contracts.OrderBook.abi as never);

export class SandboxChains {
  readonly #sandbox: Sandbox;
  readonly #rpcUrl: string;
  readonly #provider;
  readonly #iface = SELECTORS;
  /** The bot's wallets (the sandbox's market-maker wallets) and the chain B accounts that send for them. */
  readonly wallets: { readonly evm: string; readonly wasm: string };
  readonly #wasmSenders: Set<string>;
  /** Every wallet of the bot per chain (chain A lower case): the market makers and any named besides. */
  readonly #ours: { readonly evm: Set<string>; readonly wasm: Set<string> };
  readonly pairs: readonly ManifestPair[];
  readonly events: SeenEvent[] = [];
  readonly failed: FailedTx[] = [];
  #evmBlock: number;
  readonly #unlisten: () => void;

  /** `also`: names of further sandbox wallets the bot trades with (`sandbox.wallets`). */
  constructor(sandbox: Sandbox, also: readonly string[] = []) {
    this.#sandbox = sandbox;
    const m = sandbox.manifest;
    this.#rpcUrl = sandbox.evmNode.rpcUrl;
    this.#provider = sandboxProvider(this.#rpcUrl);
    const mm = (chain: Chain) => m.wallets.find((w) => w.chain === chain && w.marketMaker);
    const evm = mm('evm');
    const wasm = mm('wasm');
    if (evm === undefined || wasm === undefined) throw new Error('the sandbox has no market-maker wallet on a chain');
    this.wallets = { evm: evm.address, wasm: wasm.address };
    const more = m.wallets.filter((w) => also.includes(w.name));
    this.#ours = {
      evm: new Set([evm, ...more.filter((w) => w.chain === 'evm')].map((w) => w.address.toLowerCase())),
      wasm: new Set([wasm, ...more.filter((w) => w.chain === 'wasm')].map((w) => w.address)),
    };
    this.#wasmSenders = new Set([
      ...this.#ours.wasm,
      ...('channelAccounts' in wasm ? (wasm.channelAccounts ?? []) : []).map((c) => c.publicKey),
    ]);
    this.pairs = m.pairs;
    this.#evmBlock = -1;
    const books = new Map(m.pairs.filter((p) => p.chain === 'wasm').map((p) => [p.orderBook.strkey as string, p]));
    this.#unlisten = sandbox.emulator.onLedgerClosed((closed) => {
      const seq = closed.ledger.seq;
      for (const e of closed.events) {
        const p = books.get(e.contractId);
        if (p === undefined) continue;
        const event = decodeBookEvent(e.topics, e.data, {
          base: p.baseToken.strkey as string,
          quote: p.quoteToken.strkey as string,
        });
        if (event !== undefined && this.#ours.wasm.has(event.client))
          this.events.push({ chain: 'wasm', pairId: p.id, at: seq, event });
      }
      for (const t of closed.transactions) {
        if (t.success || !this.#wasmSenders.has(t.source)) continue;
        const fn = t.call?.fn ?? 'unknown';
        const orderId = fn.startsWith('cancel_') && t.call !== null ? read.u64(t.call.args[1], 'order_id') : null;
        this.failed.push({
          chain: 'wasm',
          at: seq,
          pairId: books.get(t.call?.contract ?? '')?.id ?? null,
          call: fn,
          orderId,
        });
      }
    });
  }

  /** Starts from the current chain heads: what happened before is not the bot's. */
  async begin(): Promise<void> {
    this.#evmBlock = await this.head('evm');
  }

  pair(id: string): ManifestPair {
    const p = this.pairs.find((x) => x.id === id);
    if (p === undefined) throw new Error(`no pair ${id}`);
    return p;
  }

  async head(chain: Chain): Promise<number> {
    if (chain === 'wasm') return this.#sandbox.emulator.latest.seq;
    return Number(BigInt((await rpc(this.#rpcUrl, 'eth_blockNumber', [])) as string));
  }

  /**
   * Waits until both chains have moved on by the given number of blocks (chain A) and ledgers (chain B): an
   * observation window measured in the sandbox's own time, whatever its block and ledger intervals are.
   */
  async pass(blocks: { evm: number; wasm: number }, timeoutMs = 60_000): Promise<void> {
    const from = { evm: await this.head('evm'), wasm: await this.head('wasm') };
    await until(
      `${blocks.evm} chain A blocks and ${blocks.wasm} chain B ledgers`,
      timeoutMs,
      async () => {
        return (
          (await this.head('evm')) - from.evm >= blocks.evm && (await this.head('wasm')) - from.wasm >= blocks.wasm
        );
      },
      50,
    );
  }

  /** The bot's resting orders on `pairId`, from the order book itself (chain A: at `blockTag`, default the latest block). */
  async resting(pairId: string, blockTag?: number): Promise<RestingOrder[]> {
    const p = this.pair(pairId);
    const ours = p.chain === 'wasm' ? this.#ours.wasm : this.#ours.evm;
    return (await this.book(pairId, blockTag))
      .filter((o) => ours.has(o.wallet))
      .map((o) => ({
        pairId,
        orderId: o.orderId,
        side: o.side,
        price: o.price,
        remaining: o.remaining,
        crossId: o.crossId,
      }));
  }

  /** Every resting order on `pairId`, of any wallet (chain A addresses in lower case). */
  async book(pairId: string, blockTag?: number): Promise<(RestingOrder & { readonly wallet: string })[]> {
    const p = this.pair(pairId);
    if (p.chain === 'wasm') {
      const book = this.#sandbox.deployed.wasmBooks.get(pairId)?.book.book;
      if (book === undefined) throw new Error(`no chain B book ${pairId}`);
      return [...book.buys, ...book.sells].map((o) => ({
        pairId,
        wallet: o.wallet,
        orderId: o.id,
        side: o.side,
        price: o.price,
        remaining: o.remaining,
        crossId: o.crossId,
      }));
    }
    const book = contractAt('OrderBook', p.orderBook.hex, this.#provider);
    const out: (RestingOrder & { wallet: string })[] = [];
    for (const side of [1, 2] as const) {
      const at = blockTag === undefined ? {} : { blockTag };
      const ids = (await book.getFunction('getOrderIds')(side, 1000, at)) as bigint[];
      for (const id of ids) {
        const [client, , remaining, price, crossId] = (await book.getFunction('getOrder')(id, at)) as [
          string,
          bigint,
          bigint,
          bigint,
          bigint,
        ];
        out.push({
          pairId,
          wallet: client.toLowerCase(),
          orderId: id,
          side: side === 1 ? 'buy' : 'sell',
          price,
          remaining,
          crossId: BigInt(crossId),
        });
      }
    }
    return out;
  }

  async restingEverywhere(): Promise<RestingOrder[]> {
    const all = await Promise.all(this.pairs.map((p) => this.resting(p.id)));
    return all.flat();
  }

  /** Reads chain A up to its head: the bot wallet's order book logs and failed transactions. */
  async sync(): Promise<void> {
    const head = await this.head('evm');
    if (head <= this.#evmBlock) return;
    const from = this.#evmBlock + 1;
    const books = new Map(this.pairs.filter((p) => p.chain === 'evm').map((p) => [p.orderBook.hex.toLowerCase(), p]));
    const logs = (await rpc(this.#rpcUrl, 'eth_getLogs', [
      { fromBlock: toQuantity(from), toBlock: toQuantity(head), address: [...books.keys()] },
    ])) as Array<{
      address: string;
      topics: string[];
      data: string;
      blockNumber: string;
    }>;
    for (const log of logs) {
      const p = books.get(log.address.toLowerCase());
      const parsed = p === undefined ? null : this.#iface.parseLog({ topics: log.topics, data: log.data });
      if (p === undefined || parsed === null) continue;
      const args: Record<string, unknown> = {};
      parsed.fragment.inputs.forEach((input, i) => (args[input.name] = parsed.args[i]));
      const event = toBookEvent(parsed.name, args, p.baseToken.hex);
      if (event !== undefined && this.#ours.evm.has(event.client.toLowerCase()))
        this.events.push({ chain: 'evm', pairId: p.id, at: Number(BigInt(log.blockNumber)), event });
    }
    for (let n = from; n <= head; n++) {
      const block = (await rpc(this.#rpcUrl, 'eth_getBlockByNumber', [toQuantity(n), true])) as {
        transactions: Array<{ hash: string; from: string; to: string | null; input: string }>;
      };
      for (const tx of block.transactions) {
        if (!this.#ours.evm.has(tx.from.toLowerCase())) continue;
        const receipt = (await rpc(this.#rpcUrl, 'eth_getTransactionReceipt', [tx.hash])) as { status: string };
        if (BigInt(receipt.status) === 1n) continue;
        const call = books.has((tx.to ?? '').toLowerCase()) ? this.#iface.parseTransaction({ data: tx.input }) : null;
        const orderId = call?.name.startsWith('cancel') === true ? (call.args[0] as bigint) : null;
        this.failed.push({
          chain: 'evm',
          at: n,
          pairId: books.get((tx.to ?? '').toLowerCase())?.id ?? null,
          call: call?.name ?? tx.input.slice(0, 10),
          orderId,
        });
      }
    }
    this.#evmBlock = head;
  }

  /** The bot's events of `type` on `pairId` carried after block or ledger `after`. */
  seen(pairId: string, type: BookEvent['type'], after = -1): SeenEvent[] {
    return this.events.filter((e) => e.pairId === pairId && e.event.type === type && e.at > after);
  }

  /**
   * What the bot's orders on `pairId` traded, from the chain alone (raw internal base units): each order
   * brought its quantity to the book, less what was rejected, cancelled or still rests. `net` counts buys
   * up and sells down (the position the fills built); `byOrder` holds each order's traded quantity.
   */
  async traded(
    pairId: string,
  ): Promise<{ gross: bigint; net: bigint; byOrder: Map<bigint, { traded: bigint; quantity: bigint }> }> {
    await this.sync();
    const resting = new Map((await this.resting(pairId)).map((o) => [o.orderId, o.remaining]));
    let gross = 0n;
    let net = 0n;
    const byOrder = new Map<bigint, { traded: bigint; quantity: bigint }>();
    for (const r of this.seen(pairId, 'OrderReceived')) {
      const received = r.event as Extract<BookEvent, { type: 'OrderReceived' }>;
      const gone = this.events
        .filter((e) => e.pairId === pairId && e.event.orderId === received.orderId)
        .reduce(
          (n, e) =>
            n +
            (e.event.type === 'CancelOrder'
              ? e.event.quantity
              : e.event.type === 'OrderRejected'
                ? e.event.quantityNotExecuted
                : 0n),
          0n,
        );
      const traded = received.quantity - gone - (resting.get(received.orderId) ?? 0n);
      byOrder.set(received.orderId, { traded, quantity: received.quantity });
      gross += traded;
      net += received.side === 1 ? traded : -traded;
    }
    return { gross, net, byOrder };
  }

  close(): void {
    this.#unlisten();
    this.#provider.destroy();
  }
}
