/**
 * A chain adapter that tells the strategy loop when something may have changed for a pair: after the order
 * engine has applied a follower notice, and after a submission's outcome settled. Everything else is passed
 * through untouched, so the order engine sees the real adapter's behaviour.
 */
import type { ChainAdapter, Command, FollowerNotice, PairBinding } from '../../chains/types.ts';

export type Activity = (pairIds: readonly string[], cause: 'events' | 'outcome') => void;

function pairsOfNotice(notice: FollowerNotice): string[] {
  return notice.kind === 'events' ? [...new Set(notice.events.map((e) => e.pairId))] : [];
}

export function observeAdapter(adapter: ChainAdapter, onActivity: Activity): ChainAdapter {
  return {
    chain: adapter.chain,
    wallet: adapter.wallet,
    readPairState: (p) => adapter.readPairState(p),
    readBalances: (p) => adapter.readBalances(p),
    readBalancesAt: (p, at) => adapter.readBalancesAt(p, at),
    readAllowance: (p, t) => adapter.readAllowance(p, t),
    ensureReady: (p) => adapter.ensureReady(p),
    ensureAllowance: (p, t, a) => adapter.ensureAllowance(p, t, a),
    settle: (h, p) => adapter.settle(h, p),
    probeOrder: (p, side, id) => adapter.probeOrder(p, side, id),
    unsettled: () => adapter.unsettled(),
    close: () => adapter.close(),
    async submit(command: Command) {
      const submission = await adapter.submit(command);
      const pairId = command.pair.pairId;
      void submission.outcome.then(
        () => onActivity([pairId], 'outcome'),
        () => onActivity([pairId], 'outcome'),
      );
      return submission;
    },
    follow(pairs: readonly PairBinding[], from, onNotice) {
      return adapter.follow(pairs, from, async (notice) => {
        await onNotice(notice);
        const ids = pairsOfNotice(notice);
        if (ids.length > 0) onActivity(ids, 'events');
      });
    },
  };
}
