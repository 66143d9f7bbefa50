/**
 * The venue's indexer for chain A: polls the node for new blocks and reads the order books' logs over
 * bounded block ranges (`eth_getLogs` with every book address), decodes them with the sandbox's own ABI and
 * applies them, in block and log order, to each pair's market. The last processed block is kept, so a poll
 * that fails is simply retried from there; a local node does not reorganise, so logs are final when read.
 */
import { getBytes, Interface, toQuantity } from 'ethers';
import type { Logger } from 'pino';
import { loadArtifacts } from '../evm/compile.ts';
import { rpc } from '../evm/node.ts';
import type { BookEvent } from '../matching/types.ts';
import type { PairMarket } from './market.ts';

export interface EvmBook {
  readonly orderBook: string;
  readonly baseToken: string;
  readonly market: PairMarket;
}

export interface EvmFollowerOptions {
  readonly rpcUrl: string;
  readonly books: readonly EvmBook[];
  /** Sandbox clock: the time the venue saw an event. */
  nowMs(): number;
  readonly pollMs: number;
  readonly maxBlockRange: number;
  readonly logger?: Logger;
  /** Every block up to `block` has been applied (the venue's finality of trades counts from here). */
  processed?(block: number, nowMs: number): void;
}

interface RawLog {
  readonly address: string;
  readonly topics: string[];
  readonly data: string;
  readonly blockNumber: string;
  readonly logIndex: string;
  readonly transactionHash: string;
}

type Args = Record<string, unknown>;

function side(v: unknown): 1 | 2 {
  return Number(v) === 1 ? 1 : 2;
}

/** A decoded order book log as the matching engine's event; undefined for other logs. */
export function toBookEvent(name: string, a: Args, baseToken: string): BookEvent | undefined {
  const client = String(a.client);
  const orderId = a.orderId as bigint;
  switch (name) {
    case 'OrderReceived':
      return {
        type: name,
        client,
        orderId,
        quantity: a.quantity as bigint,
        price: a.price as bigint,
        side: side(a.side),
        reportingData: getBytes(a.reportingData as string),
        crossIdentifier: a.crossIdentifier as bigint,
        orderType: Number(a.orderType) === 1 ? 1 : 0,
        executionCondition: Number(a.executionCondition) as 0 | 1 | 2 | 3,
      };
    case 'NewBuyOrder':
    case 'NewSellOrder':
    case 'NewBuyInitiatedTrade':
    case 'NewSellInitiatedTrade':
      return { type: name, client, orderId, quantity: a.quantity as bigint, price: a.price as bigint };
    case 'CancelOrder':
      return {
        type: name,
        client,
        orderId,
        quantity: a.quantity as bigint,
        price: a.price as bigint,
        cancellationType: Number(a.cancellationType) as 0 | 1 | 2,
        token: String(a.token).toLowerCase() === baseToken.toLowerCase() ? 'base' : 'quote',
        toAddress: String(a.toAddress),
      };
    case 'OrderRejected':
      return {
        type: name,
        client,
        orderId,
        reason: Number(a.reason),
        quantityNotExecuted: a.quantityNotExecuted as bigint,
        side: side(a.side),
        price: a.price as bigint,
      };
    default:
      return undefined;
  }
}

export class EvmFollower {
  readonly #options: EvmFollowerOptions;
  readonly #iface = new Interface(loadArtifacts().contracts.OrderBook.abi as never);
  readonly #books = new Map<string, EvmBook>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #syncing: Promise<number> | undefined;
  #waiters: { block: number; resolve: () => void }[] = [];
  processedBlock = -1;
  logsApplied = 0;

  constructor(options: EvmFollowerOptions) {
    this.#options = options;
    for (const b of options.books) this.#books.set(b.orderBook.toLowerCase(), b);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    const loop = () => {
      if (!this.#running) return;
      this.sync()
        .catch((e: unknown) => this.#options.logger?.warn({ err: e }, 'chain A indexer poll failed; retrying'))
        .finally(() => {
          if (this.#running) {
            this.#timer = setTimeout(loop, this.#options.pollMs);
            this.#timer.unref();
          }
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#syncing?.catch(() => undefined);
  }

  /** Processes every block up to the node's latest; concurrent calls share one pass. */
  sync(): Promise<number> {
    this.#syncing ??= this.#syncNow().finally(() => {
      this.#syncing = undefined;
    });
    return this.#syncing;
  }

  /** Resolves once the block is processed (syncing now if needed). */
  async waitForBlock(block: number): Promise<void> {
    if (this.processedBlock >= block) return;
    const reached = new Promise<void>((resolve) => this.#waiters.push({ block, resolve }));
    void this.sync().catch(() => undefined);
    await reached;
  }

  async #syncNow(): Promise<number> {
    const latest = Number(BigInt((await rpc(this.#options.rpcUrl, 'eth_blockNumber', [])) as string));
    const addresses = [...this.#books.values()].map((b) => b.orderBook);
    while (this.processedBlock < latest) {
      const from = this.processedBlock + 1;
      const to = Math.min(latest, from + this.#options.maxBlockRange - 1);
      const logs = (await rpc(this.#options.rpcUrl, 'eth_getLogs', [
        { fromBlock: toQuantity(from), toBlock: toQuantity(to), address: addresses },
      ])) as RawLog[];
      const ordered = logs.toSorted(
        (x, y) =>
          Number(BigInt(x.blockNumber) - BigInt(y.blockNumber)) || Number(BigInt(x.logIndex) - BigInt(y.logIndex)),
      );
      const now = this.#options.nowMs();
      for (const log of ordered) this.#apply(log, now);
      this.processedBlock = to;
      this.#options.processed?.(to, now);
      this.#wake();
    }
    return this.processedBlock;
  }

  #apply(log: RawLog, now: number): void {
    const book = this.#books.get(log.address.toLowerCase());
    if (book === undefined) return;
    let parsed: ReturnType<Interface['parseLog']>;
    try {
      parsed = this.#iface.parseLog({ topics: log.topics, data: log.data });
    } catch (e) {
      // A log that is not decodable is skipped rather than retried: the range must apply exactly once.
      this.#options.logger?.warn(
        { err: e, tx: log.transactionHash, index: log.logIndex },
        'chain A log not decodable; skipped',
      );
      return;
    }
    if (parsed === null) return;
    const args: Args = {};
    parsed.fragment.inputs.forEach((input, i) => {
      args[input.name] = parsed.args[i];
    });
    const event = toBookEvent(parsed.name, args, book.baseToken);
    if (event === undefined) return;
    book.market.apply(event, now, { txHash: log.transactionHash, height: Number(BigInt(log.blockNumber)) });
    this.logsApplied += 1;
  }

  #wake(): void {
    const due = this.#waiters.filter((w) => w.block <= this.processedBlock);
    this.#waiters = this.#waiters.filter((w) => w.block > this.processedBlock);
    for (const w of due) w.resolve();
  }
}
