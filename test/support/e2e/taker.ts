/**
 * A participant of the sandbox other than the bot (the manifest's `evm-trader` wallet) that trades on chain
 * A by the test's hand: it approves the order book once, then sends limit orders that cross the book.
 */
import { MaxUint256 } from 'ethers';
import type { Decimal } from '../../../src/core/decimal.ts';
import type { Side } from '../../../src/core/order-terms.ts';
import { derivePairRules } from '../../../src/core/rules.ts';
import { contractAt, sandboxProvider } from '../../../src/sandbox/evm/chain.ts';
import { EvmTrader } from '../../../src/sandbox/flow/evm-trader.ts';
import { EvmSender } from '../../../src/sandbox/venue/evm-sender.ts';
import type { Sandbox } from '../../../src/sandbox/venue/sandbox.ts';

export async function evmTaker(
  sandbox: Sandbox,
  pairId: string,
): Promise<{ place(side: Side, quantity: Decimal, price: Decimal): Promise<boolean>; stop(): void }> {
  const wallet = sandbox.manifest.wallets.find((w) => w.name === 'evm-trader');
  const pair = sandbox.state.pairByIdOrSymbol(pairId);
  if (wallet === undefined || pair === undefined)
    throw new Error('the sandbox has no evm-trader wallet or no such pair');
  const sender = new EvmSender({
    rpcUrl: sandbox.evmNode.rpcUrl,
    privateKey: wallet.key,
    chainId: sandbox.manifest.chains.evm.chainId,
    pollMs: 50,
  });
  const provider = sandboxProvider(sandbox.evmNode.rpcUrl);
  const orderBook = pair.addresses.orderBook.hex;
  try {
    for (const [kind, token] of [
      ['RestrictedToken', pair.addresses.base.hex],
      ['EMoneyToken', pair.addresses.quote.hex],
    ] as const) {
      const data = contractAt(kind, token, provider).interface.encodeFunctionData('approve', [orderBook, MaxUint256]);
      const receipt = await sender.send(token, data, 200_000n);
      if (!receipt.status) throw new Error(`approving ${token} for the taker failed`);
    }
  } finally {
    provider.destroy();
  }
  const trader = new EvmTrader(sender);
  const scales = derivePairRules(pair.record, pair.overrides).scales;
  return {
    place: async (side, quantity, price) =>
      (await trader.place(orderBook, scales, side, quantity, price)).receipt.status,
    stop: () => sender.stop(),
  };
}
