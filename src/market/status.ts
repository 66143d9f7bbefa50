/**
 * What the venue says about one pair beyond the book: trading status and reason, last price, static
 * reference price and halt counter (REST trade info, polled at a throttled rate), and the order book
 * contract's phase (read from the chain). Either one changing triggers the pair's recomputation.
 *
 * A failed read is the node's or the venue's incident (one line when it starts, one when it ends). A phase
 * read that fails keeps the last phase read for `PHASE_READ_GRACE_MS` after it (a node failing one call in
 * two does not pause and resume the pair at every poll); past that the book counts as not open.
 */
import type { ChainAdapter, PairBinding } from '../chains/types.ts';
import type { Decimal } from '../core/decimal.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { TradeInfo } from '../venue/payload/trade-info.ts';
import type { Clock } from '../core/clock.ts';
import { CHAIN_NODE, incidentsOf } from '../telemetry/incidents.ts';

/** How long a phase read may fail before the book counts as not open. */
export const PHASE_READ_GRACE_MS = 10_000;

export interface TradeInfoSource {
  getTradeInfo(pairId: string): Promise<TradeInfo>;
}

export interface PairStatus {
  readonly tradingStatus: string | null;
  readonly statusChangeReason: string | null;
  readonly statusChangeReasonText: string | null;
  /** When the venue expects a halt to end (epoch ms; null: not said, or unreadable). */
  readonly haltEndMs: number | null;
  readonly lastPrice: Decimal | null;
  /** The static reference price: REST `referencePrice` (the previous close), else the pair record's. */
  readonly staticReferencePrice: Decimal | null;
  readonly tradeVolume24h: Decimal | null;
  readonly haltCounter: number | null;
  readonly phase: number | string | null;
  readonly phaseOpen: boolean;
  /** When trade info was last read successfully, clock ms (null: never). */
  readonly tradeInfoAtMs: number | null;
}

export class VenueStatus {
  readonly #binding: PairBinding;
  readonly #rest: TradeInfoSource;
  readonly #adapter: ChainAdapter;
  readonly #logger: Logger;
  readonly #onChange: () => void;
  readonly #clock: Pick<Clock, 'now'> | undefined;
  #status: PairStatus;
  /** When the phase was last read (clock ms; null: never, or no clock). */
  #phaseAtMs: number | null = null;

  /** `now`: when given, a book that opens again (the end of a halt) has its trade info read at once. */
  constructor(
    binding: PairBinding,
    rest: TradeInfoSource,
    adapter: ChainAdapter,
    logger: Logger,
    onChange: () => void,
    clock?: Pick<Clock, 'now'>,
  ) {
    this.#binding = binding;
    this.#clock = clock;
    this.#rest = rest;
    this.#adapter = adapter;
    this.#logger = logger;
    this.#onChange = onChange;
    this.#status = {
      tradingStatus: null,
      statusChangeReason: null,
      statusChangeReasonText: null,
      haltEndMs: null,
      lastPrice: null,
      staticReferencePrice: binding.rules.staticReferencePrice,
      tradeVolume24h: null,
      haltCounter: null,
      phase: null,
      phaseOpen: false,
      tradeInfoAtMs: null,
    };
  }

  get current(): PairStatus {
    return this.#status;
  }

  #set(next: PairStatus): void {
    const before = this.#status;
    this.#status = next;
    const changed =
      before.tradingStatus !== next.tradingStatus ||
      before.phase !== next.phase ||
      before.haltCounter !== next.haltCounter ||
      !same(before.lastPrice, next.lastPrice) ||
      !same(before.staticReferencePrice, next.staticReferencePrice);
    if (changed) this.#onChange();
  }

  async refreshTradeInfo(nowMs: number): Promise<void> {
    try {
      const t = await this.#rest.getTradeInfo(this.#binding.pairId);
      this.#set({
        ...this.#status,
        tradingStatus: t.tradingStatus ?? null,
        statusChangeReason: t.statusChangeReason ?? null,
        statusChangeReasonText: t.statusChangeReasonText ?? null,
        haltEndMs: haltEndOf(t.estimatedTradingHaltEnd),
        lastPrice: t.lastPrice ?? this.#status.lastPrice,
        staticReferencePrice: t.referencePrice ?? this.#status.staticReferencePrice,
        tradeVolume24h: t.tradeVolume24h ?? null,
        haltCounter: t.tradingHaltCounter ?? null,
        tradeInfoAtMs: nowMs,
      });
    } catch (e) {
      // The last known status is kept.
      incidentsOf(this.#logger).failed('venue trade info', nowMs, this.#binding.pairId, e);
      return;
    }
    incidentsOf(this.#logger).succeeded('venue trade info', nowMs);
  }

  async refreshPhase(): Promise<void> {
    try {
      const s = await this.#adapter.readPairState(this.#binding);
      this.#phaseAtMs = this.#clock?.now() ?? null;
      if (this.#phaseAtMs !== null)
        incidentsOf(this.#logger).succeeded(CHAIN_NODE[this.#binding.chain], this.#phaseAtMs);
      const reopened = s.open && !this.#status.phaseOpen && this.#status.phase !== null;
      this.#set({ ...this.#status, phase: s.phase, phaseOpen: s.open });
      // The trading status follows the phase on its own (slower) poll: read it now, so quoting resumes at once.
      if (reopened && this.#clock !== undefined) await this.refreshTradeInfo(this.#clock.now());
    } catch (e) {
      const nowMs = this.#clock?.now() ?? 0;
      incidentsOf(this.#logger).failed(CHAIN_NODE[this.#binding.chain], nowMs, 'order book phase read', e, {
        pair: this.#binding.pairId,
      });
      if (this.#phaseAtMs !== null && nowMs - this.#phaseAtMs < PHASE_READ_GRACE_MS) return;
      this.#set({ ...this.#status, phase: null, phaseOpen: false });
    }
  }
}

function haltEndOf(text: string | undefined): number | null {
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

function same(a: Decimal | null, b: Decimal | null): boolean {
  return a === null || b === null ? a === b : a.eq(b);
}
