/**
 * Inventory per wallet and token: the total (free plus locked) is derived from fills, the locked part from our
 * resting orders, and the free part must then equal the wallet's on-chain balance. The first check of a
 * token takes its baseline from the chain.
 *
 * A balance is of one block or ledger; the store is of the events it has applied. The two are compared only
 * at one point of the chain: a look reads the balances as of a height H and is decided only once the store
 * is known to hold exactly the events at or below H, no more (nothing it applied is above H) and no less
 * (once the follower has delivered everything up to H, nothing at or below H arrived after the look). A
 * difference that the confirmation depth can still explain (events above the read, or not yet delivered)
 * never raises an alert: the check looks again as soon as the follower has moved on, without a fixed pause.
 * Where the chain keeps past state (chain A), the first look reads at the height the follower has already
 * delivered, so it is decided at once. A decided difference beyond the tolerance is an alert and a metric,
 * and every pair trading the token pauses until a later decided look agrees again, which resolves it.
 */
import type { BalancesAt, ChainAdapter } from '../../../chains/types.ts';
import { DltError } from '../../../core/errors.ts';
import { isUnsettled } from '../../../core/order-state.ts';
import type { WalletContext } from '../wallet-context.ts';
import { decideInventory, gaugeInventory, mismatchAlerted, rebaseInventory } from './inventory-verdict.ts';
import { parkedByToken, tokenAmounts, type Comparable, type InventoryReport, type TokenInventory } from './tokens.ts';

export type { Comparable, InventoryReport, TokenInventory } from './tokens.ts';

/** Quote the wallet received for maker fills still parked, by pair (see ParkedFills). */
export type ParkedQuote = () => Map<string, bigint>;

/** How far the store has applied the chain's events (the engine's event tracker). */
export interface Coverage {
  /** Every event at or below this height has been applied; null: not known yet. */
  readonly covered: bigint | null;
  /** Resolves true once every event at or below `height` has been applied; false at the deadline. */
  reached(height: bigint, timeoutMs: number): Promise<boolean>;
}

export interface InventoryOptions {
  /** Largest difference accepted per token address, native units; default 0 (every amount is derived exactly). */
  readonly tolerance?: (token: string) => bigint;
  /** Looks taken before a check is given up as inconclusive; default 5. */
  readonly looks?: number;
  /**
   * How long a look waits for the follower to deliver everything up to the height it read (the confirmation
   * depth plus a poll); default 60,000 ms. A look that waited in vain decides nothing.
   */
  readonly coverageTimeoutMs?: number;
}

/** Where the store was: the last applied event and the last fill (rowids). */
interface Marker {
  readonly events: number;
  readonly fills: number;
}

interface Look {
  readonly report: InventoryReport;
  /** The block or ledger of every balance of the look; null when the pairs' reads were of different heights. */
  readonly height: bigint | null;
  readonly before: Marker;
  readonly after: Marker;
}

export class InventoryChecker {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #coverage: Coverage | null;
  readonly #tolerance: (token: string) => bigint;
  readonly #looks: number;
  readonly #coverageTimeoutMs: number;
  /** The highest event height applied so far, kept up to date from the rows added since (see `#appliedAbove`). */
  #highest = { rowid: 0, height: -1n };
  /** Quote of parked maker fills, which counts before the fills are known. */
  readonly #parkedQuote: ParkedQuote;

  constructor(
    ctx: WalletContext,
    adapter: ChainAdapter,
    options: InventoryOptions = {},
    coverage: Coverage | null = null,
    parkedQuote: ParkedQuote = () => new Map(),
  ) {
    this.#ctx = ctx;
    this.#parkedQuote = parkedQuote;
    this.#adapter = adapter;
    this.#coverage = coverage;
    this.#tolerance = options.tolerance ?? (() => 0n);
    this.#looks = Math.max(1, options.looks ?? 5);
    this.#coverageTimeoutMs = options.coverageTimeoutMs ?? 60_000;
  }

  /** One comparison at the latest height, decided or not; sets baselines for tokens that have none. */
  async compare(): Promise<InventoryReport> {
    return (await this.#look(null)).report;
  }

  /**
   * Compares until a look is decided (see the file's comment), at most `looks` times. A decided difference
   * raises an alert for each pair of the token; a decided agreement resolves earlier alerts. A first look
   * that agrees while no alert is open needs no decision (a race that hides a difference is caught by a
   * later check). When no look could be decided, nothing is raised or resolved: the report says
   * `inconclusive` and the next check decides.
   */
  async verify(): Promise<InventoryReport> {
    const ctx = this.#ctx;
    let last: InventoryReport = { comparable: false, reason: 'not compared' };
    for (let attempt = 0; attempt < this.#looks; attempt++) {
      const look = await this.#look(this.#pastHeight());
      last = look.report;
      if (!look.report.comparable) return look.report;
      if (look.report.mismatched.length === 0 && !mismatchAlerted(ctx)) {
        gaugeInventory(ctx, look.report);
        return look.report;
      }
      const why = await this.#unexplained(look);
      if (why === null) return decideInventory(ctx, look.report);
      ctx.logger.info(
        {
          look: attempt + 1,
          height: look.height?.toString() ?? null,
          why: why.reason,
          mismatched: look.report.mismatched.map((token) => ({
            token: token.token,
            difference: token.difference.toString(),
          })),
        },
        why.again
          ? 'inventory look raced events the chain had not confirmed to us yet; looking again'
          : 'inventory look could not be decided',
      );
      if (!why.again) break;
    }
    ctx.logger.info(
      { looks: this.#looks },
      'inventory check inconclusive: every look raced events; the next check decides',
    );
    return last.comparable ? { ...last, mismatched: [], inconclusive: true } : last;
  }

  /**
   * The operator's answer to a mismatch the chain is right about (a deposit, a withdrawal, a transfer made by
   * hand): every token's total is set so that the derived free amount equals the on-chain balance, and the
   * open inventory alerts of the wallet are resolved with the operator's note. Refused while an order of the
   * wallet is not settled, since its lock is not known yet, and while no look can be decided (events in
   * flight would be re-based as if they were a deposit). Returns the comparison it corrected.
   */
  async rebaseline(note: string): Promise<Comparable> {
    const ctx = this.#ctx;
    let decided: Comparable | null = null;
    for (let attempt = 0; attempt < this.#looks && decided === null; attempt++) {
      const look = await this.#look(this.#pastHeight());
      if (!look.report.comparable)
        throw new DltError(
          'E_ORDER_STATE',
          `inventory of ${ctx.wallet} cannot be re-based now: ${look.report.reason}; try again when they are settled`,
        );
      const why = await this.#unexplained(look);
      if (why === null) decided = look.report;
      else if (!why.again) break;
    }
    if (decided === null)
      throw new DltError(
        'E_ORDER_STATE',
        `inventory of ${ctx.wallet} cannot be re-based now: events of the wallet are still arriving; try again in a moment`,
      );
    rebaseInventory(ctx, decided, note);
    return decided;
  }

  /**
   * The height a look reads at: the one the store has applied everything up to, when nothing it applied lies
   * above it (the chain keeps that state: chain A). Null: the latest.
   */
  #pastHeight(): bigint | null {
    const covered = this.#coverage?.covered ?? null;
    return covered !== null && !this.#appliedAbove(covered) ? covered : null;
  }

  /** Reads every pair's balances as of one height and compares them with the store. */
  async #look(at: bigint | null): Promise<Look> {
    const ctx = this.#ctx;
    const before = this.#marker();
    const none = (reason: string): Look => ({
      report: { comparable: false, reason },
      height: null,
      before,
      after: before,
    });
    const unsettled = ctx.repos.orders.live({ wallet: ctx.wallet }).filter((order) => isUnsettled(order.status));
    if (unsettled.length > 0) return none(`${unsettled.length} order(s) not settled yet`);
    const reads: BalancesAt[] = [];
    let height = at;
    for (const pair of ctx.pairs.values()) {
      let read: BalancesAt;
      try {
        read = await this.#adapter.readBalancesAt(pair.binding, height);
      } catch (err) {
        // A node that no longer keeps the state of that block: the latest, then.
        if (at === null) throw err;
        ctx.logger.debug(
          { err, at: at.toString() },
          'balances could not be read at an earlier block; reading the latest',
        );
        return this.#look(null);
      }
      reads.push(read);
      height ??= read.height;
    }
    // Checked now, after the reads: what the store holds at this instant is what the balances are compared with.
    const live = ctx.repos.orders.live({ wallet: ctx.wallet });
    const unsettledNow = live.filter((order) => isUnsettled(order.status));
    if (unsettledNow.length > 0) return none(`${unsettledNow.length} order(s) not settled yet`);
    const tokens = tokenAmounts(ctx.pairs, reads, live, ctx.marketMaker);
    const parked = parkedByToken(ctx.pairs, this.#parkedQuote());
    const out: TokenInventory[] = [];
    for (const [token, amounts] of tokens) {
      let row = ctx.repos.inventory.get(ctx.chain, ctx.wallet, token);
      if (row === undefined) {
        ctx.repos.inventory.setBaseline(ctx.chain, ctx.wallet, token, amounts.onChain + amounts.locked);
        row = ctx.repos.inventory.get(ctx.chain, ctx.wallet, token);
        ctx.logger.info({ token, total: amounts.onChain + amounts.locked }, 'inventory baseline taken from the chain');
      }
      const total = (row?.total ?? amounts.onChain + amounts.locked) + (parked.get(token) ?? 0n);
      out.push({
        token,
        pairs: amounts.pairs,
        onChain: amounts.onChain,
        total,
        locked: amounts.locked,
        difference: amounts.onChain - (total - amounts.locked),
      });
    }
    const mismatched = out.filter(
      (inventory) =>
        (inventory.difference < 0n ? -inventory.difference : inventory.difference) > this.#tolerance(inventory.token),
    );
    const same = reads.every((balances) => balances.height === reads[0]?.height);
    const read = reads[0]?.height ?? null;
    return {
      report: { comparable: true, tokens: out, mismatched, ...(read === null ? {} : { height: read }) },
      height: same ? read : null,
      before,
      after: this.#marker(),
    };
  }

  /**
   * Null when the look saw the chain and the store at the same point (then its difference, or its agreement,
   * is the truth); otherwise why not. Waits for the follower to deliver everything up to the look's height.
   */
  async #unexplained(look: Look): Promise<{ reason: string; again: boolean } | null> {
    const ctx = this.#ctx;
    const height = look.height;
    if (height === null) return { reason: 'the balances were read at different heights', again: true };
    if (this.#coverage === null) return { reason: 'the events are not followed', again: false };
    // No more: nothing the store applied while the balances were read lies above them.
    const above = ctx.repos.events.countAbove(ctx.chain, ctx.wallet, height, look.before.events, look.after.events);
    if (above > 0)
      return { reason: `events above height ${height} were applied while the balances were read`, again: true };
    // No less: once everything up to the height is delivered, nothing at or below it came after the look.
    if (!(await this.#coverage.reached(height, this.#coverageTimeoutMs)))
      return {
        reason: `the events up to height ${height} were not delivered within ${this.#coverageTimeoutMs} ms`,
        again: false,
      };
    const late = ctx.repos.events.countAtOrBelow(ctx.chain, ctx.wallet, height, look.after.events);
    if (late > 0)
      return { reason: `${late} event(s) at or below height ${height} arrived after the look`, again: true };
    if (this.#marker().fills !== look.after.fills) return { reason: 'fills were recorded after the look', again: true };
    return null;
  }

  /** Whether the store applied an event above `height` (kept up to date from the rows added since the last call). */
  #appliedAbove(height: bigint): boolean {
    const ctx = this.#ctx;
    const highest = ctx.repos.events.highestSince(ctx.chain, ctx.wallet, this.#highest.rowid);
    if (highest !== null) {
      const height = highest.height > this.#highest.height ? highest.height : this.#highest.height;
      this.#highest = { rowid: highest.position, height };
    }
    return this.#highest.height > height;
  }

  #marker(): Marker {
    const ctx = this.#ctx;
    return {
      events: ctx.repos.events.lastPosition(ctx.chain, ctx.wallet),
      fills: ctx.repos.evaluation.lastSeq(ctx.wallet),
    };
  }
}
