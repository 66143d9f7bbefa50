/**
 * The bot on the sandbox with the opt-in band 7 pair (`band7Pair`) while the simulated market runs: it quotes
 * MMF7EURe at seven-decimal prices on the 0.0000001 grid, and the chain A uninformed taker, which sends every
 * order with an empty cross identifier, fills the bot's quotes; the bot books those fills, counts no malformed
 * log, raises no alert and takes none of those orders for its own. Checked with the test's own reads of the chain.
 */
import { join } from 'node:path';
import { id, Interface, toQuantity } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadArtifacts } from '../../src/sandbox/evm/compile.ts';
import { rpc } from '../../src/sandbox/evm/node.ts';
import { BAND7_PAIR } from '../../src/sandbox/venue/band7-pair.ts';
import { openStoreReadOnly } from '../../src/store/store.ts';
import { series, total } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { HALF_SECOND_BLOCKS, sandboxSession, untilReady, type SessionBot } from '../support/e2e/session.ts';

const PAIR = BAND7_PAIR.pair.id;
const LIMITS = {
  maxInventory: '1000',
  maxNotional: '2500',
  maxOpenOrders: 8,
  dailyLossLimit: '1000',
  maxDrawdown: '1000',
  staleMarketDataMs: 15_000,
};
const BOOK = new Interface(loadArtifacts().contracts.OrderBook.abi as never);
/** keccak256 of Transfer(address,address,uint256): the token events of a fill. */
const TRANSFER = id('Transfer(address,address,uint256)');

const session = sandboxSession(
  'e2e-band7',
  { ...HALF_SECOND_BLOCKS, flow: { enabled: true, takerIntervalMs: 2_000, informedShare: 0.2 }, band7Pair: true },
  { chains: { begin: true }, keep: 'if-failed' },
);
let bot: SessionBot;

beforeAll(async () => {
  bot = await session.startBot('band7', { risk: LIMITS });
  await untilReady(bot, 'bot');
}, 120_000);

/** Chain A transactions of `from` to an order book whose cross identifier argument was empty, with their receipts' logs. */
async function emptyCrossTxs(
  from: string,
  fromBlock: number,
): Promise<Array<{ hash: string; blockHash: string; logs: Array<{ topics: string[] }> }>> {
  const head = await session.chains.head('evm');
  const books = new Set(
    session.chains.pairs.filter((p) => p.chain === 'evm').map((p) => p.orderBook.hex.toLowerCase()),
  );
  const out = [];
  for (let n = fromBlock; n <= head; n++) {
    const block = (await rpc(session.sandbox.evmNode.rpcUrl, 'eth_getBlockByNumber', [toQuantity(n), true])) as {
      hash: string;
      transactions: Array<{ hash: string; from: string; to: string | null; input: string }>;
    };
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() !== from.toLowerCase() || !books.has((tx.to ?? '').toLowerCase())) continue;
      const call = BOOK.parseTransaction({ data: tx.input });
      if (call === null || !call.name.startsWith('new') || call.args[2] !== '0x') continue;
      const receipt = (await rpc(session.sandbox.evmNode.rpcUrl, 'eth_getTransactionReceipt', [tx.hash])) as {
        logs: Array<{ topics: string[] }>;
      };
      out.push({ hash: tx.hash, blockHash: block.hash, logs: receipt.logs });
    }
  }
  return out;
}

describe('band 7 and empty cross identifiers on chain A', () => {
  it('quotes the band 7 pair at seven-decimal prices on the 0.0000001 grid', async () => {
    // Raw prices at the pair's quote internal scale of 10^8: the grid is 10 raw units, 0.0001 is 10,000.
    const prices = await until('seven-decimal quotes on both sides', 60_000, async () => {
      const resting = await session.chains.resting(PAIR);
      const sides = new Set(resting.map((o) => o.side));
      return sides.size === 2 && resting.some((o) => o.price % 10_000n !== 0n) ? resting.map((o) => o.price) : false;
    });
    expect(prices.filter((p) => p % 10n !== 0n)).toEqual([]);
  }, 90_000);

  it("books the fills of another client's orders with an empty cross identifier, as ordinary orders", async () => {
    const taker = session.sandbox.deployed.wallets.find((w) => w.name === 'flow-taker-evm')?.address as string;
    const ours = session.chains.wallets.evm.toLowerCase();
    const toUs = (t: { topics: string[] }) =>
      t.topics[0] === TRANSFER && `0x${(t.topics[2] ?? '').slice(26)}`.toLowerCase() === ours;
    // A taker transaction with an empty cross identifier that moved tokens to our wallet filled one of our quotes.
    const filling = await until('a fill of ours by an order with an empty cross identifier', 120_000, async () => {
      const hits = (await emptyCrossTxs(taker, 1)).filter((tx) => tx.logs.some(toUs));
      return hits.length > 0 ? hits : false;
    });
    await until('the bot booked them', 30_000, () => {
      const store = openStoreReadOnly(join(session.dir, 'band7.sqlite'));
      try {
        const booked = filling.filter(
          (tx) =>
            store.db.prepare('SELECT fill_id FROM fills WHERE lower(tx_hash) = ? AND role = ?').all(tx.hash, 'maker')
              .length > 0,
        );
        return booked.length === filling.length;
      } finally {
        store.close();
      }
    });
    const m = await bot.metrics();
    expect(total(m, 'dltmm_evm_malformed_total')).toBe(0);
    expect(series(m, 'dltmm_alerts_total').filter((s) => s.value > 0)).toEqual([]);
    const store = openStoreReadOnly(join(session.dir, 'band7.sqlite'));
    try {
      expect(store.foreign.open('evm', session.chains.wallets.evm)).toEqual([]);
    } finally {
      store.close();
    }
  }, 200_000);
});
