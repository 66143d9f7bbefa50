/**
 * The book replay kept up to date while the bot runs: every order book event of every participant, read from
 * the chains themselves (chain A: `eth_getLogs` of the books from block 0; chain B: the emulator's retained
 * events from its first ledger) and applied in chain order up to the heights asked for. The state samples read
 * it at a fixed pair of heights; the report reads it once the run is over.
 */
import { Interface, toQuantity } from 'ethers';
import { toBookEvent } from '../../src/sandbox/api/evm-follower.ts';
import { loadArtifacts } from '../../src/sandbox/evm/compile.ts';
import { rpc } from '../../src/sandbox/evm/node.ts';
import type { Sandbox } from '../../src/sandbox/venue/sandbox.ts';
import { decodeBookEvent } from '../../src/sandbox/wasm/contracts/book-events.ts';
import { BookReplay } from './book-replay.ts';
import type { Chain } from './model.ts';

const BOOK = new Interface(loadArtifacts().contracts.OrderBook.abi as never);
const RANGE = 2_000;

interface RawLog {
  readonly address: string;
  readonly topics: string[];
  readonly data: string;
  readonly blockNumber: string;
  readonly logIndex: string;
}

export class LiveBooks {
  readonly replay: BookReplay;
  /** Highest block and ledger applied. */
  readonly applied: Record<Chain, number> = { evm: -1, wasm: -1 };
  readonly #sandbox: Sandbox;
  readonly #evmBooks: ReadonlyMap<string, { pairId: string; baseToken: string }>;
  readonly #wasmBooks: ReadonlyMap<string, { pairId: string; base: string; quote: string }>;
  #busy: Promise<void> = Promise.resolve();

  constructor(sandbox: Sandbox, ours: Readonly<Record<Chain, string>>) {
    this.#sandbox = sandbox;
    this.replay = new BookReplay(ours);
    const pairs = sandbox.manifest.pairs;
    this.#evmBooks = new Map(
      pairs
        .filter((p) => p.chain === 'evm')
        .map((p) => [p.orderBook.hex.toLowerCase(), { pairId: p.id, baseToken: p.baseToken.hex }]),
    );
    this.#wasmBooks = new Map(
      pairs
        .filter((p) => p.chain === 'wasm')
        .map((p) => [
          p.orderBook.strkey as string,
          { pairId: p.id, base: p.baseToken.strkey as string, quote: p.quoteToken.strkey as string },
        ]),
    );
  }

  /** Applies every event up to block `evm` and ledger `wasm` (both already closed). Calls run one after another. */
  catchUp(to: Readonly<Record<Chain, number>>): Promise<void> {
    const run = this.#busy.then(async () => {
      await this.#evm(to.evm);
      this.#wasm(to.wasm);
    });
    this.#busy = run.catch(() => undefined);
    return run;
  }

  async #evm(to: number): Promise<void> {
    const url = this.#sandbox.evmNode.rpcUrl;
    for (let a = this.applied.evm + 1; a <= to; a += RANGE) {
      const b = Math.min(to, a + RANGE - 1);
      const logs = (await rpc(url, 'eth_getLogs', [
        { address: [...this.#evmBooks.keys()], fromBlock: toQuantity(a), toBlock: toQuantity(b) },
      ])) as RawLog[];
      const ordered = logs.toSorted(
        (x, y) =>
          Number(BigInt(x.blockNumber) - BigInt(y.blockNumber)) || Number(BigInt(x.logIndex) - BigInt(y.logIndex)),
      );
      for (const log of ordered) {
        const book = this.#evmBooks.get(log.address.toLowerCase());
        const parsed = book === undefined ? null : BOOK.parseLog({ topics: log.topics, data: log.data });
        if (book === undefined || parsed === null) continue;
        const args: Record<string, unknown> = {};
        parsed.fragment.inputs.forEach((input, i) => (args[input.name] = parsed.args[i]));
        const event = toBookEvent(parsed.name, args, book.baseToken);
        if (event !== undefined)
          this.replay.apply({ chain: 'evm', pairId: book.pairId, height: Number(BigInt(log.blockNumber)), event });
      }
      this.applied.evm = b;
    }
  }

  #wasm(to: number): void {
    if (to <= this.applied.wasm) return;
    const from = this.applied.wasm + 1;
    const events = this.#sandbox.emulator
      .events()
      .query({ ledger: from, txIndex: 0, opIndex: 0, eventIndex: 0 }, to + 1, [], Number.MAX_SAFE_INTEGER);
    for (const e of events) {
      const book = this.#wasmBooks.get(e.contractId);
      if (book === undefined) continue;
      const event = decodeBookEvent(e.topics, e.data, { base: book.base, quote: book.quote });
      if (event !== undefined) this.replay.apply({ chain: 'wasm', pairId: book.pairId, height: e.ledger, event });
    }
    this.applied.wasm = to;
  }
}
