/**
 * Inventory per wallet and token: the total (free plus locked) is derived from fills, the locked part from our
 * resting orders, and the free part must then equal the wallet's on-chain balance. The first check of a
 * token takes its baseline from the chain. A difference beyond the tolerance counts only from a look that
 * raced no event (the follower delivered nothing meanwhile); then it is an alert and a metric, and every pair
 * trading the token pauses until a later check agrees again.
 */
import type { ChainAdapter } from '../../chains/types.ts';
import { DltError } from '../../core/errors.ts';
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
  | {
      readonly comparable: true;
      readonly tokens: readonly TokenInventory[];
      readonly mismatched: readonly TokenInventory[];
      /** Every look raced events the follower delivered meanwhile: nothing was decided. */
      readonly inconclusive?: boolean;
    };

/** Quote the wallet received for maker fills still parked, by pair (see ParkedFills). */
export type ParkedQuote = () => Map<string, bigint>;

export interface InventoryOptions {
  /** Largest difference accepted per token address, native units; default 0 (every amount is derived exactly). */
  readonly tolerance?: (token: string) => bigint;
  /**
   * How long a look waits for what it may have raced: longer than the follower takes to deliver an event
   * (its poll interval plus the confirmation depth). Default 10,000 ms.
   */
  readonly confirmDelayMs?: number;
  /** Looks taken before a check is given up as inconclusive; default 2. */
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
    this.#confirmDelayMs = options.confirmDelayMs ?? 10_000;
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
   * Compares, and decides a difference only from a clean look: one after which the store applied nothing for
   * the wallet while the follower had time to deliver (`confirmDelayMs`, then `settle`). A balance read races
   * whatever the chain did that the follower had not delivered yet; that event reaches the store within the
   * wait, so a look with nothing applied saw the chain and the store at the same point. A clean look with a
   * difference raises an alert for each pair of the token; a clean look without one resolves earlier alerts.
   * When every look raced an event (a busy book), nothing is decided: the next check looks again.
   */
  async verify(settle: () => Promise<void> = async () => {}): Promise<InventoryReport> {
    const ctx = this.#ctx;
    const alerted = () => ctx.store.alerts.open({ chain: ctx.chain, wallet: ctx.wallet, kind: 'inventory-mismatch' });
    let report: InventoryReport = { comparable: false, reason: 'not compared' };
    for (let look = 0; look < this.#looks; look++) {
      const before = this.#applied();
      report = await this.compare();
      if (!report.comparable) return report;
      // Agreement with no alert open needs no confirmation (and a race that hides a difference is caught later).
      if (report.mismatched.length === 0 && alerted().length === 0) return report;
      await ctx.sleep(this.#confirmDelayMs);
      await settle();
      if (this.#applied() === before) return this.#decide(report);
      ctx.logger.info({ look: look + 1, mismatched: report.mismatched.map((t) => ({ token: t.token, difference: t.difference.toString() })) }, 'inventory look raced events the follower delivered meanwhile; looking again');
    }
    ctx.logger.info('inventory check inconclusive: every look raced events; the next check decides');
    return report.comparable ? { ...report, mismatched: [], inconclusive: true } : report;
  }

  /** Events and order transitions the store has applied for the wallet: what a look may have raced. */
  /**
   * The operator's answer to a mismatch the chain is right about (a deposit, a withdrawal, a transfer made by
   * hand): every token's total is set so that the derived free amount equals the on-chain balance, and the
   * open inventory alerts of the wallet are resolved with the operator's note. Refused while an order of the
   * wallet is not settled, since its lock is not known yet. Returns the comparison it corrected.
   */
  async rebaseline(note: string): Promise<Extract<InventoryReport, { comparable: true }>> {
    const ctx = this.#ctx;
    const report = await this.compare();
    if (!report.comparable) throw new DltError('E_ORDER_STATE', `inventory of ${ctx.wallet} cannot be re-based now: ${report.reason}; try again when they are settled`);
    for (const t of report.tokens) {
      if (t.difference === 0n) continue;
      const row = ctx.store.inventory.get(ctx.chain, ctx.wallet, t.token);
      ctx.store.inventory.setBaseline(ctx.chain, ctx.wallet, t.token, (row?.total ?? 0n) + t.difference);
      ctx.metrics.inventoryMismatch.set({ chain: ctx.chain, wallet: ctx.wallet, token: t.token }, 0);
      ctx.logger.warn({ token: t.token, onChain: t.onChain, locked: t.locked, difference: t.difference, note }, 'inventory re-based on the on-chain balance by the operator');
    }
    for (const a of ctx.store.alerts.open({ chain: ctx.chain, wallet: ctx.wallet, kind: 'inventory-mismatch' })) {
      ctx.store.alerts.resolve(a.id, `operator re-based the inventory on the on-chain balances: ${note}`);
    }
    return report;
  }

  #applied(): string {
    const ctx = this.#ctx;
    const events = ctx.store.db.prepare('SELECT MAX(rowid) AS n FROM processed_events WHERE chain = ? AND wallet = ?').get(ctx.chain, ctx.wallet) as { n: number | null };
    const transitions = ctx.store.db.prepare('SELECT MAX(id) AS n FROM order_transitions WHERE wallet = ?').get(ctx.wallet) as { n: number | null };
    return `${events.n ?? 0}:${transitions.n ?? 0}`;
  }

  #decide(report: Extract<InventoryReport, { comparable: true }>): InventoryReport {
    const ctx = this.#ctx;
    for (const t of report.mismatched) {
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
    const bad = new Set(report.mismatched.flatMap((t) => t.pairs));
    for (const a of ctx.store.alerts.open({ chain: ctx.chain, wallet: ctx.wallet, kind: 'inventory-mismatch' })) {
      if (a.pairId !== null && !bad.has(a.pairId)) {
        ctx.store.alerts.resolve(a.id, 'a later check found the on-chain balances equal to the derived inventory');
        ctx.logger.info({ alert: a.id, pairId: a.pairId }, 'inventory mismatch explained');
      }
    }
    return report;
  }
}
