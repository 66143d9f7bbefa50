/**
 * The chain adapter as the wallet engine's parts use it: after the engine has applied a follower notice, and
 * after a submission's outcome settled, it raises the wallet's activity (something may have changed for these
 * pairs) and hands confirmed events on. Everything else passes through untouched, so the parts see the real
 * adapter's behaviour.
 */
import type { ChainAdapter, Command, FollowerNotice, PairBinding } from '../../chains/types.ts';
import type { WalletSignals } from './signals.ts';

function pairsOfNotice(notice: FollowerNotice): string[] {
  return notice.kind === 'events' ? [...new Set(notice.events.map((e) => e.pairId))] : [];
}

export function observeAdapter(
  adapter: ChainAdapter,
  signals: Pick<WalletSignals, 'activity' | 'confirmedEvents'>,
): ChainAdapter {
  return {
    chain: adapter.chain,
    wallet: adapter.wallet,
    nativeDecimals: adapter.nativeDecimals,
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
    ...(adapter.readWalletBalances === undefined
      ? {}
      : { readWalletBalances: adapter.readWalletBalances.bind(adapter) }),
    ...(adapter.placementLanes === undefined ? {} : { placementLanes: adapter.placementLanes }),
    ...(adapter.crossIdentifiersSeen === undefined
      ? {}
      : { crossIdentifiersSeen: adapter.crossIdentifiersSeen.bind(adapter) }),
    async submit(command: Command) {
      const submission = await adapter.submit(command);
      const pairIds = [command.pair.pairId];
      void submission.outcome.then(
        () => signals.activity.emit({ pairIds, cause: 'outcome' }),
        () => signals.activity.emit({ pairIds, cause: 'outcome' }),
      );
      return submission;
    },
    follow(pairs: readonly PairBinding[], from, onNotice) {
      return adapter.follow(pairs, from, async (notice) => {
        await onNotice(notice);
        const pairIds = pairsOfNotice(notice);
        if (pairIds.length > 0) signals.activity.emit({ pairIds, cause: 'events' });
        if (notice.kind === 'events' && notice.confirmed && notice.events.length > 0)
          signals.confirmedEvents.emit(notice.events);
      });
    },
  };
}
