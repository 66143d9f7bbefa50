/**
 * The venue's back end over the deployed chains: the indexers that rebuild every book from the chains'
 * events (chain A logs, chain B events), and the trading scheduler with an operator per book that sets its
 * phase, its reference price and clears it. Each part started is deferred on the start's disposal stack.
 */
import type { Logger } from 'pino';
import { EvmFollower } from '../api/evm-follower.ts';
import type { VenueState } from '../api/venue-state.ts';
import { WasmFollower } from '../api/wasm-follower.ts';
import type { WasmEmulator } from '../wasm/emulator.ts';
import { evmBookOperator, wasmBookOperator, type BookOperator } from './book-operator.ts';
import type { SandboxClock } from './clock.ts';
import type { DeployedSandbox } from './deploy.ts';
import { EvmSender } from './evm-sender.ts';
import { sandboxCalendar, type SandboxConfig } from './options.ts';
import { TradingScheduler } from './scheduler.ts';

/** Starts following both chains into the venue state's markets. */
export function startFollowers(
  config: SandboxConfig,
  state: VenueState,
  evmRpcUrl: string,
  emu: WasmEmulator,
  clock: SandboxClock,
  stack: AsyncDisposableStack,
  logger: Logger,
): { evmFollower: EvmFollower; wasmFollower: WasmFollower } {
  const evmFollower = new EvmFollower({
    rpcUrl: evmRpcUrl,
    books: state.pairs
      .filter((p) => p.chain === 'evm')
      .map((p) => ({ orderBook: p.addresses.orderBook.hex, baseToken: p.addresses.base.hex, market: p.market })),
    nowMs: () => clock.nowMs(),
    pollMs: config.indexer.pollMs,
    maxBlockRange: config.indexer.maxBlockRange,
    logger,
    processed: (block, nowMs) => state.trades.processed('evm', block, nowMs),
  });
  stack.defer(() => evmFollower.stop());
  const wasmFollower = new WasmFollower({
    emulator: emu,
    books: state.pairs
      .filter((p) => p.chain === 'wasm')
      .map((p) => ({
        orderBook: p.addresses.orderBook.strkey as string,
        baseToken: p.addresses.base.strkey as string,
        quoteToken: p.addresses.quote.strkey as string,
        market: p.market,
      })),
    nowMs: () => clock.nowMs(),
    logger,
  });
  stack.defer(() => wasmFollower.stop());
  evmFollower.start();
  wasmFollower.start();
  return { evmFollower, wasmFollower };
}

/** The trading scheduler (not started) with an operator for every book. */
export function buildScheduler(
  config: SandboxConfig,
  state: VenueState,
  deployed: DeployedSandbox,
  evmRpcUrl: string,
  emu: WasmEmulator,
  clock: SandboxClock,
  pollMs: number,
  stack: AsyncDisposableStack,
  logger: Logger,
): TradingScheduler {
  const operatorSender = new EvmSender({
    rpcUrl: evmRpcUrl,
    privateKey: deployed.evm.operator.privateKey,
    chainId: deployed.evm.chainId,
    pollMs,
  });
  stack.defer(() => operatorSender.stop());
  const operators = new Map<string, BookOperator>();
  for (const p of state.pairs) {
    const book = deployed.wasmBooks.get(p.id);
    operators.set(
      p.id,
      book === undefined
        ? evmBookOperator(operatorSender, evmRpcUrl, p.addresses.orderBook.hex)
        : wasmBookOperator(emu, deployed.wasm, book),
    );
  }
  const scheduler = new TradingScheduler({
    state,
    operators,
    nowMs: () => clock.nowMs(),
    mode: config.trading.mode,
    calendar: sandboxCalendar(config),
    firstHaltPauseMs: config.trading.firstHaltPauseMs,
    secondHaltPauseMs: config.trading.secondHaltPauseMs,
    resumeCutoffMs: config.trading.resumeCutoffMs,
    tickMs: config.trading.tickMs,
    logger,
  });
  stack.defer(() => scheduler.stop());
  return scheduler;
}
