/** What the order manager is asked and answers (see order-manager.ts). */
import type { Decimal } from '../../../core/decimal.ts';
import type { ReportingData } from '../../../core/encoding/reporting.ts';
import type { OrderOptions, Side } from '../../../core/order-terms.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import type { Decision } from '../../../store/state-store.ts';

export interface PlaceOrder {
  readonly pairId: string;
  readonly side: Side;
  readonly quantity: Decimal;
  readonly price: Decimal;
  readonly options?: OrderOptions;
  readonly reporting?: ReportingData;
  /** What made the order (market snapshot, parameters, config hash, risk checks); stored with it. */
  readonly decision?: Decision;
  /** The ladder level of the quote (0 nearest the centre), for markouts by level. */
  readonly level?: number;
}

export interface Placed {
  readonly clientOrderId: bigint;
  readonly txHash: string | null;
  /** The order once the outcome of its transaction is applied (or left unknown). */
  readonly settled: Promise<StoredOrder>;
}

/** A placement recorded and queued: `sent` resolves once its transaction has left the process. */
export interface HandedOver {
  readonly clientOrderId: bigint;
  readonly sent: Promise<Placed>;
}

export interface CancelResult {
  readonly clientOrderId: bigint;
  readonly txHash: string | null;
  readonly settled: Promise<StoredOrder>;
}

export interface CancelAllReport {
  readonly final: StoredOrder[];
  /** Orders still live at the deadline. */
  readonly open: StoredOrder[];
}
