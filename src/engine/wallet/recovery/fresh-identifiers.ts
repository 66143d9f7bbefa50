/**
 * Identifiers unique for a wallet's whole life. A fresh state file (no identifier handed out for the wallet
 * yet: a new wallet, or a lost state volume) would start the cross identifiers at their first value again and
 * send numbers the chain has seen before, which a surveillance record and any recovery that looks an identifier
 * up on chain cannot tell apart. So before its first order the bot reads every cross identifier the chain shows
 * for the wallet's orders and starts above the highest of its own, and says so.
 */
import type { ChainAdapter } from '../../../chains/types.ts';
import type { WalletContext } from '../wallet-context.ts';

export async function startAboveHistory(ctx: WalletContext, adapter: ChainAdapter): Promise<void> {
  if (!ctx.ids.fresh || adapter.crossIdentifiersSeen === undefined) return;
  const seen = await adapter.crossIdentifiersSeen([...ctx.pairs.values()].map((p) => p.binding));
  const highest = ctx.ids.startAbove(seen);
  ctx.logger.info(
    { ordersSeen: seen.length, highestOfOurs: highest.toString(), tag: ctx.ids.tag },
    highest === 0n
      ? 'fresh state file: the chain shows no order of ours for this wallet; identifiers start at the first'
      : `fresh state file: identifiers start above ${highest}, the highest of ours the chain shows`,
  );
}
