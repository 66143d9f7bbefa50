/**
 * Everything the venue API serves, in one place: the pairs (static record, instrument, trading status) with
 * the market each indexer keeps, the participant and the wallets it owns, and the lagged order lists.
 * The indexers write markets, the scheduler writes statuses, the REST and WebSocket servers read.
 */
import type { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import type { TradingPair } from '../../core/pair.ts';
import type { PairOverrides } from '../../core/rules.ts';
import type { PairScales } from '../../core/units.ts';
import type { Phase } from '../matching/types.ts';
import type { InstrumentSeed } from './instruments.ts';
import { PairMarket } from './market.ts';
import { LaggedOrders } from './open-orders.ts';
import { WalletTrades } from './wallet-trades.ts';

/**
 * REST strings of the trading status. Only CONTINUOUS_TRADING and OUT_OF_TRADING are the specification's;
 * the others are the sandbox's choice (src/sandbox/README.md).
 */
export type TradingStatus =
  | 'CREATED'
  | 'OUT_OF_TRADING'
  | 'CONTINUOUS_TRADING'
  | 'AUTOMATIC_TRADING_HALT'
  | 'MANUAL_TRADING_HALT'
  | 'DISABLED'
  | 'PERMANENTLY_DELETED';

/** REST strings of `statusChangeReason`; only START_OF_TRADING_DAY is confirmed by the specification. */
export type StatusReason =
  | 'TRADING_PAIR_CREATION'
  | 'START_OF_TRADING_DAY'
  | 'MANUAL_MARKET_OPEN'
  | 'END_OF_TRADING_DAY'
  | 'MANUAL_MARKET_CLOSE'
  | 'VENUE_INITIATED_HALT'
  | 'VOLATILITY_HALT'
  | 'AUTOMATIC_RESUME';

export const REASON_TEXT: Readonly<Record<StatusReason, string>> = {
  TRADING_PAIR_CREATION: 'Trading pair created',
  START_OF_TRADING_DAY: 'Start of trading day',
  MANUAL_MARKET_OPEN: 'Market opened by the venue',
  END_OF_TRADING_DAY: 'End of trading day',
  MANUAL_MARKET_CLOSE: 'Market closed by the venue',
  VENUE_INITIATED_HALT: 'Trading halted by the venue',
  VOLATILITY_HALT: 'Automatic trading halt after a volatility interruption',
  AUTOMATIC_RESUME: 'Automatic resumption after a volatility interruption',
};

export interface PairStatus {
  readonly tradingStatus: TradingStatus;
  readonly statusChangeReason: StatusReason;
  readonly changedAtMs: number;
  /** The order book's phase as last set or read. */
  readonly phase: Phase;
  /** Human price; moves to the last execution price at the close. */
  readonly staticReferencePrice: Decimal;
  /** Automatic halts of the trading day; resets at the open. */
  readonly tradingHaltCounter: number;
}

export interface ChainAddresses {
  /** What REST serves: 0x address on chain A, hex of the 32-byte contract id on chain B. */
  readonly hex: string;
  /** Chain B only: the C... strkey. */
  readonly strkey?: string;
}

export interface VenuePair {
  readonly id: string;
  readonly symbol: string;
  readonly chain: 'evm' | 'wasm';
  readonly prefunded: boolean;
  /** The TradingPair with addresses and creation date; status fields are rendered from `status`. */
  readonly record: TradingPair;
  readonly scales: PairScales;
  readonly instrument: InstrumentSeed;
  /** Rule overrides the contracts were deployed with (a minimum size other than one increment, a tick table). */
  readonly overrides: PairOverrides;
  readonly addresses: {
    readonly orderBook: ChainAddresses;
    readonly base: ChainAddresses;
    readonly quote: ChainAddresses;
  };
  readonly market: PairMarket;
  status: PairStatus;
}

export interface ParticipantWallet {
  readonly name: string;
  readonly chain: 'evm' | 'wasm';
  readonly address: string;
  /** Designated MARKET_MAKER at the venue (else TRADING). */
  readonly marketMaker?: boolean;
}

/** A wallet's record at the venue (`GET /wallets/byaddress/{address}`); every wallet starts VERIFIED. */
export interface WalletRecord {
  readonly status: string;
  readonly designation: string;
}

/** Chain A addresses compare case-insensitively; chain B strkeys exactly. */
export function walletKey(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;
}

export class VenueState {
  readonly participantId: string;
  readonly wallets: readonly ParticipantWallet[];
  readonly orders: LaggedOrders;
  /** The trades of the participant's wallets (`GET /wallets/{address}/trades`). */
  readonly trades = new WalletTrades();
  readonly #pairs: VenuePair[] = [];
  readonly #walletKeys: Set<string>;
  readonly #walletRecords = new Map<string, Partial<WalletRecord>>();

  constructor(options: {
    participantId: string;
    wallets: readonly ParticipantWallet[];
    orderLagMs: number;
    wallNow?: () => number;
    venueNow?: () => number;
  }) {
    this.participantId = options.participantId;
    this.wallets = options.wallets;
    this.#walletKeys = new Set(options.wallets.map((w) => walletKey(w.address)));
    this.orders = new LaggedOrders(options.orderLagMs, options.wallNow, options.venueNow);
  }

  addPair(p: VenuePair): void {
    if (this.#pairs.some((x) => x.id === p.id || x.symbol === p.symbol)) {
      throw new DltError('E_SANDBOX', `pair id ${p.id} or symbol ${p.symbol} is already used`, {
        details: { part: 'venue-state', id: p.id },
      });
    }
    this.#pairs.push(p);
    p.market.listen({
      orderReceived: (o) => this.orders.receive(o),
      orderChanged: (o) => this.orders.update(o),
      orderEnded: (e) => this.orders.end(e),
      match: (_id, m) => this.trades.addMatch(p, m, (w) => this.ownsWallet(w)),
    });
  }

  get pairs(): readonly VenuePair[] {
    return this.#pairs;
  }

  /** Pairs the REST list shows: every pair not in an inactive status. */
  activePairs(): VenuePair[] {
    return this.#pairs.filter((p) => !['CREATED', 'DISABLED', 'PERMANENTLY_DELETED'].includes(p.status.tradingStatus));
  }

  pair(id: string): VenuePair | undefined {
    return this.#pairs.find((p) => p.id === id);
  }

  /** By id or market symbol (control endpoints accept either). */
  pairByIdOrSymbol(ref: string): VenuePair | undefined {
    return this.#pairs.find((p) => p.id === ref || p.symbol === ref);
  }

  pairBySymbol(symbol: string): VenuePair | undefined {
    return this.#pairs.find((p) => p.symbol === symbol);
  }

  ownsWallet(address: string): boolean {
    return this.#walletKeys.has(walletKey(address));
  }

  /** The wallet's record at the venue; undefined for a wallet of no participant here. */
  walletRecord(address: string): WalletRecord | undefined {
    const w = this.wallets.find((x) => walletKey(x.address) === walletKey(address));
    if (w === undefined) return undefined;
    const designation = w.marketMaker === true ? 'MARKET_MAKER' : 'TRADING';
    return { status: 'VERIFIED', designation, ...this.#walletRecords.get(walletKey(address)) };
  }

  /** Control: changes a wallet's status or designation (a verification withdrawn, a wallet blocked). */
  setWalletRecord(address: string, patch: Partial<WalletRecord>): WalletRecord | undefined {
    if (!this.ownsWallet(address)) return undefined;
    const key = walletKey(address);
    this.#walletRecords.set(key, { ...this.#walletRecords.get(key), ...patch } as WalletRecord);
    return this.walletRecord(address);
  }

  setStatus(pairId: string, patch: Partial<PairStatus>): PairStatus {
    const p = this.pair(pairId);
    if (p === undefined)
      throw new DltError('E_SANDBOX', `no pair ${pairId}`, { details: { part: 'venue-state', pairId } });
    p.status = { ...p.status, ...patch };
    return p.status;
  }
}
