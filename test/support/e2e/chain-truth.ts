/**
 * The test's own measure of market-making presence, from the chains alone and never from the bot: the bot's
 * resting orders and the order book's phase after every chain A block (read at that block) and every chain B
 * ledger (read as the ledger closes), each held until the next block or ledger. A stretch counts as continuous
 * trading while the book's phase is open, and as present while a bid and an ask of the bot meet the terms.
 */
import { toQuantity } from 'ethers';
import { Decimal } from '../../../src/core/decimal.ts';
import { derivePairRules } from '../../../src/core/rules.ts';
import { contractAt, sandboxProvider } from '../../../src/sandbox/evm/chain.ts';
import { rpc } from '../../../src/sandbox/evm/node.ts';
import type { Sandbox } from '../../../src/sandbox/venue/sandbox.ts';
import type { RestingOrder, SandboxChains } from './sandbox-chains.ts';

export interface ChainSnapshot {
  /** Block number or ledger sequence. */
  readonly at: number;
  /** Block timestamp or ledger close time, ms. */
  readonly timeMs: number;
  readonly phase: 'open' | 'halted' | 'closed';
  readonly orders: readonly Pick<RestingOrder, 'orderId' | 'side' | 'price' | 'remaining'>[];
}

export interface Terms {
  readonly maxSpreadBps: number;
  /** Minimum value of each side, quote units. */
  readonly minValue: string;
  readonly maxSizeRatio: number;
}

/** Chain A: every block from `from` to `to`, read at that block. */
export async function evmSnapshots(
  sandbox: Sandbox,
  chains: SandboxChains,
  pairId: string,
  from: number,
  to: number,
): Promise<ChainSnapshot[]> {
  const provider = sandboxProvider(sandbox.evmNode.rpcUrl);
  try {
    const book = contractAt('OrderBook', chains.pair(pairId).orderBook.hex, provider);
    const out: ChainSnapshot[] = [];
    for (let n = from; n <= to; n++) {
      const block = (await rpc(sandbox.evmNode.rpcUrl, 'eth_getBlockByNumber', [toQuantity(n), false])) as {
        timestamp: string;
      };
      const phase = Number(await book.getFunction('getOrderBookPhase').staticCall({ blockTag: n }));
      const orders = await chains.resting(pairId, n);
      out.push({
        at: n,
        timeMs: Number(BigInt(block.timestamp)) * 1000,
        phase: phase === 1 ? 'open' : phase === 3 || phase === 4 ? 'halted' : 'closed',
        orders,
      });
    }
    return out;
  } finally {
    provider.destroy();
  }
}

/** Chain B: the book as each ledger closes, from now until `close()`. */
export class WasmSnapshots {
  readonly snapshots: ChainSnapshot[] = [];
  readonly #stop: () => void;

  constructor(sandbox: Sandbox, pairId: string, wallet: string) {
    const deployed = sandbox.deployed.wasmBooks.get(pairId);
    if (deployed === undefined) throw new Error(`no chain B book ${pairId}`);
    this.#stop = sandbox.emulator.onLedgerClosed((closed) => {
      // Read afresh at every close: the contract may hold a new book object after a change.
      const book = deployed.book.book;
      const orders = [...book.buys, ...book.sells]
        .filter((o) => o.wallet === wallet)
        .map((o) => ({ orderId: o.id, side: o.side, price: o.price, remaining: o.remaining }));
      const phase =
        book.phase === 'open'
          ? 'open'
          : book.phase === 'manualHalt' || book.phase === 'automaticHalt'
            ? 'halted'
            : 'closed';
      this.snapshots.push({ at: closed.ledger.seq, timeMs: Number(closed.ledger.closeTime) * 1000, phase, orders });
    });
  }

  close(): void {
    this.#stop();
  }
}

/** Whether a bid and an ask of these orders meet the terms (sizes by value, spread of the midpoint). */
export function meets(
  orders: ChainSnapshot['orders'],
  terms: Terms,
  scales: { baseInternal: bigint; quoteInternal: bigint },
): boolean {
  const human = orders.map((o) => {
    const price = new Decimal(o.price.toString()).div(scales.quoteInternal.toString());
    const qty = new Decimal(o.remaining.toString()).div(scales.baseInternal.toString());
    return { side: o.side, price, value: price.mul(qty) };
  });
  const sized = human.filter((o) => o.value.gte(terms.minValue));
  for (const b of sized.filter((o) => o.side === 'buy')) {
    for (const a of sized.filter((o) => o.side === 'sell')) {
      if (a.price.lte(b.price)) continue;
      const spread = a.price.sub(b.price).div(a.price.add(b.price).div(2)).mul(10_000);
      const larger = Decimal.max(a.value, b.value);
      const comparable = larger.sub(Decimal.min(a.value, b.value)).lte(larger.mul(terms.maxSizeRatio));
      if (spread.lte(terms.maxSpreadBps) && comparable) return true;
    }
  }
  return false;
}

export interface Truth {
  readonly continuousMs: number;
  readonly presentMs: number;
  readonly ratio: number | null;
  /** Stretches of presence (from absent or not trading to present). */
  readonly presentStretches: number;
  /** Changes of the book between open and not open. */
  readonly phaseChanges: number;
  /** After each end of a halt: blocks or ledgers until a compliant bid and ask rest (0: at once). */
  readonly backAfterHalt: number[];
  /** Our orders that rested at some time (each a quote). */
  readonly quotes: number;
}

export function truthOf(
  snapshots: readonly ChainSnapshot[],
  terms: Terms,
  scales: { baseInternal: bigint; quoteInternal: bigint },
  window: { from: number; to: number },
): Truth {
  let continuousMs = 0;
  let presentMs = 0;
  let presentStretches = 0;
  let phaseChanges = 0;
  let wasPresent = false;
  const backAfterHalt: number[] = [];
  const quotes = new Set<string>();
  let waiting: number | null = null;
  for (let i = 0; i + 1 < snapshots.length; i++) {
    const s = snapshots[i] as ChainSnapshot;
    for (const o of s.orders) quotes.add(String(o.orderId));
    const from = Math.max(s.timeMs, window.from);
    const to = Math.min((snapshots[i + 1] as ChainSnapshot).timeMs, window.to);
    const open = s.phase === 'open';
    const ok = open && meets(s.orders, terms, scales);
    const before = i > 0 ? (snapshots[i - 1] as ChainSnapshot).phase : s.phase;
    if ((before === 'open') !== open) phaseChanges += 1;
    if (before === 'halted' && open) waiting = i;
    if (waiting !== null && ok) {
      backAfterHalt.push(i - waiting);
      waiting = null;
    }
    if (ok && !wasPresent) presentStretches += 1;
    wasPresent = ok;
    if (to <= from) continue;
    if (open) continuousMs += to - from;
    if (ok) presentMs += to - from;
  }
  return {
    continuousMs,
    presentMs,
    ratio: continuousMs > 0 ? presentMs / continuousMs : null,
    presentStretches,
    phaseChanges,
    backAfterHalt,
    quotes: quotes.size,
  };
}

export function scalesOf(sandbox: Sandbox, pairId: string): { baseInternal: bigint; quoteInternal: bigint } {
  const p = sandbox.state.pairByIdOrSymbol(pairId);
  if (p === undefined) throw new Error(`no pair ${pairId}`);
  return derivePairRules(p.record, p.overrides).scales;
}
