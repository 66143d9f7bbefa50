/**
 * Following a placement's outcome once its transaction left (see order-actions.ts): its inclusion latency,
 * its recording as included or refused, a rejection counted and fed to the risk gate, and the pair's next look.
 */
import type { RecordedAction } from '../recording/recorder.ts';
import { CHAIN_NODE, isTransportFailure, type Incidents } from '../../telemetry/incidents.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { RiskMonitor } from '../risk/monitor.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import type { LoopMetrics } from './loop-metrics.ts';

/** Refusals that say the book was not open for trading: the venue's state, not a failure of ours. */
export const MARKET_NOT_OPEN = 'E_VENUE_MARKET_CLOSED';

/** Records one stage of an action. */
export type Recorder = (stage: RecordedAction['stage'], more?: Partial<RecordedAction>) => void;

export interface OutcomeWatch {
  readonly pairId: string;
  readonly engine: Pick<WalletEngine, 'chain'>;
  readonly risk: RiskMonitor;
  readonly clock: { now(): number };
  readonly logger: Logger;
  readonly metrics: LoopMetrics;
  readonly incidents: Incidents;
  /** A placement's outcome is known: the pair is worth another look. */
  readonly onOutcome: () => void;
  /** The book refused an order as not open: the pair backs off and reads its phase again. */
  readonly marketNotOpen: () => void;
}

/** A transport failure is the chain node's incident (the node fails, not the action); the rest the actions'. */
export function kindOf(chain: WalletEngine['chain'], code: string): string {
  return isTransportFailure(code) ? CHAIN_NODE[chain] : 'order actions';
}

export function watchOutcome(
  o: OutcomeWatch,
  settled: Promise<{
    status: string;
    orderId: bigint | null;
    rejection: { code: string | null; reason: string } | null;
  }>,
  sentMs: number,
  record: Recorder,
): void {
  const chain = o.engine.chain;
  settled.then(
    (order) => {
      o.metrics.inclusionLatency.observe({ chain }, (o.clock.now() - sentMs) / 1000);
      if (order.status === 'rejected')
        record('refused', { detail: order.rejection?.code ?? order.rejection?.reason ?? 'unknown' });
      else if (order.status !== 'unknown') record('included', { orderId: order.orderId });
      if (order.status === 'rejected' && order.rejection?.code === 'E_ORDER_WITHDRAWN') {
        // Withdrawn by a newer decision (or a pull): nothing to look at again, and a round for it would only
        // withdraw the placements that decision queued.
        o.metrics.actions.inc({ pair: o.pairId, type: 'place', result: 'withdrawn' });
        return;
      } else if (order.status === 'rejected') {
        const reason = order.rejection?.code ?? order.rejection?.reason ?? 'unknown';
        o.metrics.rejections.inc({ pair: o.pairId, reason });
        if (reason === MARKET_NOT_OPEN) o.marketNotOpen();
        else if (isTransportFailure(reason)) o.risk.transportFailed(o.pairId, o.clock.now());
        else o.risk.txFailed(o.pairId, o.clock.now(), reason);
        // A node that failed the command before signing is the node's incident, not a line per order.
        if (isTransportFailure(reason))
          o.incidents.failed(kindOf(chain, reason), o.clock.now(), o.pairId, order.rejection, { action: 'place' });
        else o.logger.warn({ pair: o.pairId, reason, detail: order.rejection?.reason }, 'our order was rejected');
      } else {
        o.risk.txSucceeded(o.pairId);
      }
      o.onOutcome();
    },
    (e: unknown) => o.logger.warn({ err: e, pair: o.pairId }, 'following an order outcome failed'),
  );
}
