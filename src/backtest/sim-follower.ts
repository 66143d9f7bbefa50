/**
 * The follower of a wallet under test in a backtest: every block or ledger of the simulated chain reported,
 * empty or not (a cursor heartbeat), with the wallet's events as a real follower decodes them (its own order
 * events, its token movements, and the trades of others in transactions that moved its tokens), after the
 * chain's confirmation delay, in block order. One that starts from nothing says where it starts and that it is
 * not behind, as the real followers do.
 */
import type { ChainEvent, EventCursor, Follower, FollowerNotice, PairBinding } from '../chains/types.ts';
import type { Clock } from '../core/clock.ts';
import type { SimBlock, SimChain } from './sim-chain.ts';

export interface SimFollowerOptions {
  readonly chain: SimChain;
  readonly wallet: string;
  readonly clock: Clock;
  /** From a block to its events reaching the follower. */
  readonly confirmMs: number;
}

/** The wallet's events of a block, as a follower filtering by client and by the wallet's transfers reads them. */
function eventsOf(block: SimBlock, wallet: string, pairs: ReadonlySet<string>): ChainEvent[] {
  return block.txs.flatMap((tx) => {
    if (!pairs.has(tx.pairId)) return [];
    const moved = tx.events.some((e) => e.type === 'Transfer' && (e.from === wallet || e.to === wallet));
    return tx.events.filter((e) =>
      e.type === 'Transfer'
        ? e.from === wallet || e.to === wallet
        : e.client === wallet || (moved && e.type === 'Trade'),
    );
  });
}

function cursorOf(chain: 'evm' | 'wasm', height: bigint, hash: string | null): EventCursor {
  return chain === 'evm'
    ? { chain: 'evm', height, blockHash: hash ?? '0x' }
    : { chain: 'wasm', cursor: height.toString(), height };
}

export function simFollower(
  o: SimFollowerOptions,
  pairs: readonly PairBinding[],
  from: EventCursor | null,
  onNotice: (n: FollowerNotice) => Promise<void>,
): Follower {
  const ids = new Set(pairs.map((p) => p.pairId));
  const c = o.chain;
  let deliveries = Promise.resolve();
  let stopped = false;
  const deliver = (notices: readonly FollowerNotice[]) => {
    deliveries = deliveries
      .then(async () => {
        for (const n of notices) if (!stopped) await onNotice(n);
      })
      .catch(() => undefined);
  };
  if (from === null)
    deliver([
      { kind: 'events', events: [], confirmed: true, cursor: cursorOf(c.chain, c.height, null) },
      { kind: 'lag', behind: 0n, covered: c.height },
    ]);
  const off = c.onBlock((block) => {
    const notices: FollowerNotice[] = [
      {
        kind: 'events',
        events: eventsOf(block, o.wallet, ids),
        confirmed: true,
        cursor: cursorOf(c.chain, block.height, block.hash),
      },
      { kind: 'lag', behind: 0n, covered: block.height },
    ];
    o.clock.setTimer(() => deliver(notices), o.confirmMs);
  });
  return {
    poll: () => undefined,
    stop: async () => {
      stopped = true;
      off();
      await deliveries;
    },
  };
}
