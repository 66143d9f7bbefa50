/**
 * The obligation tracker's view of the chain: a chain adapter whose event follower hands every confirmed
 * batch to `sink` after the order engine has applied it (so our orders are known by their venue ids and the
 * engine's fills are recorded). Everything else passes through untouched.
 */
import type { ChainAdapter, ChainEvent } from '../../chains/types.ts';

export function tapConfirmedEvents(adapter: ChainAdapter, sink: (events: readonly ChainEvent[]) => void): ChainAdapter {
  return {
    chain: adapter.chain,
    wallet: adapter.wallet,
    readPairState: (p) => adapter.readPairState(p),
    readBalances: (p) => adapter.readBalances(p),
    readBalancesAt: (p, at) => adapter.readBalancesAt(p, at),
    probeOrder: (p, side, id) => adapter.probeOrder(p, side, id),
    unsettled: () => adapter.unsettled(),
    readAllowance: (p, t) => adapter.readAllowance(p, t),
    ensureReady: (p) => adapter.ensureReady(p),
    ensureAllowance: (p, t, a) => adapter.ensureAllowance(p, t, a),
    submit: (c) => adapter.submit(c),
    settle: (h, p) => adapter.settle(h, p),
    close: () => adapter.close(),
    follow(pairs, from, onNotice) {
      return adapter.follow(pairs, from, async (notice) => {
        await onNotice(notice);
        if (notice.kind === 'events' && notice.confirmed && notice.events.length > 0) sink(notice.events);
      });
    },
  };
}
