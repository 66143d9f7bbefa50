/** The queries and call options of the venue's REST client (`rest-client.ts`). */
export interface InstrumentFilter {
  readonly primaryMarket?: boolean;
  readonly secondaryMarket?: boolean;
}

export interface PairPageQuery {
  readonly cursor?: string;
  readonly limit?: number;
  /** Ask for `total_count`. */
  readonly count?: boolean;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** The venue SDK's order list query; every page is followed. */
export interface OrderQuery {
  /** `trading_pair`: one pair id. */
  readonly tradingPair?: string;
  /** `only_open`; default true; false lists the filled, cancelled and rejected orders the venue keeps too. */
  readonly onlyOpen?: boolean;
  /** `limit`: orders per page; default the venue's. */
  readonly pageSize?: number;
}
