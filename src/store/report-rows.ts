/** The rows the trading-day report reads: a pair's samples and the pair as the report knows it. */
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
