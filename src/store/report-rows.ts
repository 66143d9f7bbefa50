/** The rows the trading-day report reads, and how a database row becomes one: a pair's samples and the pair as the report knows it. */
type Chain = 'evm' | 'wasm';

export interface PairSample {
  readonly pairId: string;
  readonly atMs: number;
  readonly mark: string | null;
  /** The value the PnL attribution marks to (fair value, else the mid of others' book); null: none. */
  readonly value: string | null;
  readonly position: string;
  readonly realised: string;
  readonly unrealised: string;
  readonly fees: string;
  readonly bid: string | null;
  readonly ask: string | null;
  readonly spreadBps: number | null;
  readonly maxSpreadBps: number | null;
  /** Null for a pair without obligations. */
  readonly compliant: boolean | null;
  readonly presence: number | null;
}

export interface ReportPair {
  readonly pairId: string;
  readonly symbol: string;
  readonly chain: Chain;
  readonly wallet: string;
  /** Scales as decimal strings. */
  readonly scales: {
    readonly baseInternal: string;
    readonly quoteInternal: string;
    readonly baseNative: string;
    readonly quoteNative: string;
  };
  /** The pair's `obligations` section as configured; null without one. */
  readonly obligations: unknown;
  /** `{ enabled, holidays, open, close }` of the calendar the bot ran with. */
  readonly calendar: unknown;
  readonly updatedMs: number;
}

type Row = Record<string, string | number | null>;

function numberOrNull(value: string | number | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export function sampleOf(row: Row): PairSample {
  return {
    pairId: String(row.pair_id),
    atMs: Number(row.at_ms),
    mark: row.mark === null ? null : String(row.mark),
    value: row.value === null || row.value === undefined ? null : String(row.value),
    position: String(row.position),
    realised: String(row.realised),
    unrealised: String(row.unrealised),
    fees: String(row.fees),
    bid: row.bid === null ? null : String(row.bid),
    ask: row.ask === null ? null : String(row.ask),
    spreadBps: numberOrNull(row.spread_bps),
    maxSpreadBps: numberOrNull(row.max_spread_bps),
    compliant: row.compliant === null ? null : row.compliant === 1,
    presence: numberOrNull(row.presence),
  };
}

export function reportPairOf(row: Row): ReportPair {
  return {
    pairId: String(row.pair_id),
    symbol: String(row.symbol),
    chain: row.chain as Chain,
    wallet: String(row.wallet),
    scales: JSON.parse(String(row.scales_json)) as ReportPair['scales'],
    obligations: row.obligations_json === null ? null : (JSON.parse(String(row.obligations_json)) as unknown),
    calendar: JSON.parse(String(row.calendar_json)) as unknown,
    updatedMs: Number(row.updated_ms),
  };
}
