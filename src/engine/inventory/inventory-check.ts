/**
 * Inventory per wallet and token: the total (free plus locked) is derived from fills, the locked part from our
 * resting orders, and the free part must then equal the wallet's on-chain balance. The first check of a
 * token takes its baseline from the chain. A difference beyond the tolerance is confirmed by a second look
 * after the event follower has had time to deliver what a balance read may have raced; if it persists, it is
 * an alert and a metric, and every pair trading the token pauses until a later check agrees again.
 */
import type { ChainAdapter } from '../../chains/types.ts';
import { remainingOf } from '../../core/order-state.ts';
import { lockOf } from '../fills/amounts.ts';
import { makerRateOf } from '../pair-runtime.ts';
import { raiseAlert } from '../tracking/alerts.ts';
import type { WalletContext } from '../wallet-context.ts';

export interface TokenInventory {
  readonly token: string;
  readonly pairs: readonly string[];
  readonly onChain: bigint;
  readonly total: bigint;
  readonly locked: bigint;
  /** On-chain minus derived free balance. */
  readonly difference: bigint;
}

export type InventoryReport =
  | { readonly comparable: false; readonly reason: string }
  | { readonly comparable: true; readonly tokens: readonly TokenInventory[]; readonly mismatched: readonly TokenInventory[] };

/** Quote the wallet received for maker fills still parked, by pair (see ParkedFills). */
export type ParkedQuote = () => Map<string, bigint>;

export interface InventoryOptions {
  /** Largest difference accepted per token address, native units; default 0 (every amount is derived exactly). */
  readonly tolerance?: (token: string) => bigint;
  /** Pause before each confirming look; default 2000 ms (longer than the confirmation depth takes). */
  readonly confirmDelayMs?: number;
  /** Looks a difference must survive to be a mismatch; default 2. */
  readonly looks?: number;
}

const UNSETTLED = new Set(['intended', 'submitting', 'unknown', 'received']);
const HOLDING = new Set(['resting', 'partiallyFilled', 'cancelRequested']);

export class InventoryChecker {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #tolerance: (token: string) => bigint;
  readonly #confirmDelayMs: number;
  readonly #looks: number;
  /** Set by the engine: quote of parked maker fills counts before the fills are known. */
  parkedQuote: ParkedQuote = () => new Map();

  constructor(ctx: WalletContext, adapter: ChainAdapter, options: InventoryOptions = {}) {
    this.#ctx = ctx;
    this.#adapter = adapter;
    this.#tolerance = options.tolerance ?? (() => 0n);
    this.#confirmDelayMs = options.confirmDelayMs ?? 2_000;
    this.#looks = Math.max(1, options.looks ?? 2);
  }

  /** One comparison; sets baselines for tokens that have none and the mismatch gauge. */
  async compare(): Promise<InventoryReport> {
    const ctx = this.#ctx;
    const live = ctx.store.orders.live({ wallet: ctx.wallet });
    const unsettled = live.filter((o) => UNSETTLED.has(o.status));
    if (unsettled.length > 0) return { comparable: false, reason: `${unsettled.length} order(s) not settled yet` };
    const tokens = new Map<string, { pairs: string[]; onChain: bigint | null; locked: bigint }>();
    for (const p of ctx.pairs.values()) {
      const b = p.binding;
      const balances = await this.#adapter.readBalances(b);
      for (const [address, amount] of [
        [b.baseToken, balances.base],
        [b.quoteToken, balances.quote],
      ] as const) {
        const t = tokens.get(address) ?? { pairs: [], onChain: null, locked: 0n };
        t.pairs.push(b.pairId);
        t.onChain = amount;
        tokens.set(address, t);
      }
    }
    for (const o of live.filter((x) => HOLDING.has(x.status))) {
      const p = ctx.pairs.get(o.pairId);
      if (p === undefined) continue;
      const lock = lockOf({ side: o.side, price: o.price, remaining: remainingOf(o), lockRateBps: o.lockRateBps ?? makerRateOf(p, ctx.marketMaker) }, p.binding.rules.scales, o.prefunded ?? p.prefunded);
      const base = tokens.get(p.binding.baseToken);
      const quote = tokens.get(p.binding.quoteToken);
      if (base !== undefined) base.locked += lock.base;
      if (quote !== undefined) quote.locked += lock.quote;
    }
    const parked = new Map<string, bigint>();
    for (const [pairId, q] of this.parkedQuote()) {
      const token = ctx.pairs.get(pairId)?.binding.quoteToken;
      if (token !== undefined) parked.set(token, (parked.get(token) ?? 0n) + q);
    }
    const out: TokenInventory[] = [];
    for (const [token, t] of tokens) {
      const onChain = t.onChain ?? 0n;
      let row = ctx.store.inventory.get(ctx.chain, ctx.wallet, token);
      if (row === undefined) {
        ctx.store.inventory.setBaseline(ctx.chain, ctx.wallet, token, onChain + t.locked);
        row = ctx.store.inventory.get(ctx.chain, ctx.wallet, token);
        ctx.logger.info({ token, total: onChain + t.locked }, 'inventory baseline taken from the chain');
      }
      const total = (row?.total ?? onChain + t.locked) + (parked.get(token) ?? 0n);
      const difference = onChain - (total - t.locked);
      ctx.metrics.inventoryMismatch.set({ chain: ctx.chain, wallet: ctx.wallet, token }, Number(difference));
      out.push({ token, pairs: t.pairs, onChain, total, locked: t.locked, difference });
    }
    const mismatched = out.filter((t) => (t.difference < 0n ? -t.difference : t.difference) > this.#tolerance(t.token));
    return { comparable: true, tokens: out, mismatched };
  }

  /**
   * Compares, and confirms a mismatch by further looks after `settle` (the caller lets the follower catch up).
   * A difference is confirmed only when every look finds the same amount for the token: a balance read that
   * raced an event the follower had not yet delivered shows that event's amount, and on a busy book the next
   * look races the next event, so a difference that changes between looks is a race, not a loss. A confirmed
   * mismatch raises an alert for each pair of the token; a check whose last look agrees resolves earlier ones.
   */
  async verify(settle: () => Promise<void> = async () => {}): Promise<InventoryReport> {
    const ctx = this.#ctx;
    let report = await this.compare();
    const differences = new Map<string, bigint[]>();
    const note = (r: InventoryReport) => {
      if (r.comparable) for (const t of r.mismatched) differences.set(t.token, [...(differences.get(t.token) ?? []), t.difference]);
    };
    note(report);
    for (let look = 1; look < this.#looks && report.comparable && report.mismatched.length > 0; look++) {
      await ctx.sleep(this.#confirmDelayMs);
      await settle();
      report = await this.compare();
      note(report);
    }
    if (!report.comparable) return report;
    // A comparable last look with a difference means every look was taken and comparable.
    const confirmed = report.mismatched.filter((t) => {
      const seen = differences.get(t.token) ?? [];
      return seen.length === this.#looks && seen.every((d) => d === t.difference);
    });
    for (const t of report.mismatched.filter((x) => !confirmed.includes(x))) {
      ctx.logger.info({ token: t.token, differences: differences.get(t.token)?.map(String) }, 'inventory difference changed between looks: a balance read raced an event; checking again later');
    }
    for (const t of confirmed) {
      for (const pairId of t.pairs) {
        raiseAlert(ctx, pairId, 'inventory-mismatch', `on-chain balance of ${t.token} differs from the inventory derived from fills by ${t.difference}`, {
          token: t.token,
          onChain: t.onChain,
          total: t.total,
          locked: t.locked,
          difference: t.difference,
        });
      }
    }
    // Only a last look that agrees explains an earlier alert; a race decides nothing either way.
    const bad = new Set(report.mismatched.flatMap((t) => t.pairs));
    for (const a of ctx.store.alerts.open({ chain: ctx.chain, wallet: ctx.wallet, kind: 'inventory-mismatch' })) {
      if (a.pairId !== null && !bad.has(a.pairId)) {
        ctx.store.alerts.resolve(a.id, 'a later check found the on-chain balances equal to the derived inventory');
        ctx.logger.info({ alert: a.id, pairId: a.pairId }, 'inventory mismatch explained');
      }
    }
    return { ...report, mismatched: confirmed };
  }
}
