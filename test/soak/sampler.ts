/**
 * State samples: while the market runs, the bot's gauges are scraped, chain B's state is read (it lives in this
 * process: an instant read), the gauges are scraped again, and the reading counts when neither chain moved on
 * and both scrapes agree. Chain A is then read at that block number (historical calls), and both chains also
 * at the block or ledger before. What the bot had in flight is counted from the RPC recorder: a chain A
 * placement is in flight at a height when its nonce was not yet used by then; a chain B one when it was sent
 * after that ledger closed. A reading is taken only once the bot says (`dltmm_events_covered`)
 * that it has applied every event up to the older of those two heights on both chains: a moment just after a
 * new block, before the bot has read it, would compare the bot with a chain it cannot know yet. A bot that never
 * gets there within `CATCH_UP_MS` leaves the sample unreached, which fails the soak.
 */
import { venueOpenOrders } from '../support/e2e/venue-orders.ts';
import { contractAt, sandboxProvider } from '../../src/sandbox/evm/chain.ts';
import { rpc } from '../../src/sandbox/evm/node.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import { baseFromNative, quantityFromRaw } from '../../src/core/units.ts';
import type { Sandbox } from '../../src/sandbox/venue/sandbox.ts';
import type { BotProcess } from '../support/e2e/bot-process.ts';
import type { SandboxChains } from '../support/e2e/sandbox-chains.ts';
import { netFilledIn, remainingAt, restingAt } from './book-replay.ts';
import type { MetricSample } from '../support/e2e/metrics-text.ts';
import { compareGauges, gaugeFingerprint, type ChainState } from './gauges.ts';
import type { LiveBooks } from './live-books.ts';
import type { Chain, GaugeCheck, StateSample } from './model.ts';
import type { RpcRecorder } from './rpc-record.ts';
import type { Timeline } from './timeline.ts';

const ATTEMPTS = 10;
/** How long a reading waits for the bot to apply the chains' events up to the block or ledger before the head. */
const CATCH_UP_MS = 15_000;
const RECHECK_MS = 50;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The height up to which the bot has applied every event of ours on `chain` (-1 before its first report). */
export function appliedHeight(metrics: readonly MetricSample[], chain: Chain): number {
  return metrics.find((m) => m.name === 'dltmm_events_covered' && m.labels.chain === chain)?.value ?? -1;
}

export interface SamplerDeps {
  readonly sandbox: Sandbox;
  readonly chains: SandboxChains;
  readonly bot: BotProcess;
  readonly timeline: Timeline;
  readonly recorder: RpcRecorder;
  readonly live: LiveBooks;
  readonly crossIdTag: number;
}

/** Base token balances of our wallets per pair (native units); chain A at `evmBlock` (default the latest). */
export async function baseBalances(
  sandbox: Sandbox,
  wallets: Readonly<Record<Chain, string>>,
  pairs: SandboxChains['pairs'],
  evmBlock?: number,
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  const provider = sandboxProvider(sandbox.evmNode.rpcUrl);
  try {
    for (const p of pairs) {
      if (p.chain === 'wasm') {
        const book = sandbox.deployed.wasmBooks.get(p.id);
        if (book === undefined) throw new Error(`no chain B book ${p.id}`);
        out.set(p.id, book.base.balanceOf(wallets.wasm));
      } else {
        const at = evmBlock === undefined ? {} : { blockTag: evmBlock };
        out.set(
          p.id,
          BigInt(
            (await contractAt('EMoneyToken', p.baseToken.hex, provider).getFunction('balanceOf')(
              wallets.evm,
              at,
            )) as bigint,
          ),
        );
      }
    }
  } finally {
    provider.destroy();
  }
  return out;
}

export class StateSampler {
  readonly checks: GaugeCheck[] = [];
  readonly samples: StateSample[] = [];
  readonly #d: SamplerDeps;
  readonly #baseline: ReadonlyMap<string, bigint>;

  constructor(deps: SamplerDeps, baseline: ReadonlyMap<string, bigint>) {
    this.#d = deps;
    this.#baseline = baseline;
  }

  async sample(n: number): Promise<void> {
    const { sandbox, bot, chains } = this.#d;
    const evmHead = async () => Number(BigInt((await rpc(sandbox.evmNode.rpcUrl, 'eth_blockNumber', [])) as string));
    const deadline = Date.now() + CATCH_UP_MS;
    let behind: string | null = null;
    for (let attempt = 1; attempt <= ATTEMPTS;) {
      const heads = { evm: await evmHead(), wasm: sandbox.emulator.latest.seq };
      const cut = Date.now();
      const before = await bot.metrics();
      const applied = { evm: appliedHeight(before, 'evm'), wasm: appliedHeight(before, 'wasm') };
      if (applied.evm < heads.evm - 1 || applied.wasm < heads.wasm - 1) {
        if (Date.now() > deadline) {
          behind = `the bot had applied events to block ${applied.evm} of ${heads.evm}, ledger ${applied.wasm} of ${heads.wasm}`;
          break;
        }
        await pause(RECHECK_MS);
        continue;
      }
      attempt++;
      const wasmBalances = await baseBalances(
        sandbox,
        chains.wallets,
        chains.pairs.filter((p) => p.chain === 'wasm'),
      );
      const wasmBook = (
        await Promise.all(chains.pairs.filter((p) => p.chain === 'wasm').map((p) => chains.resting(p.id)))
      ).flat();
      const after = await bot.metrics();
      if (
        (await evmHead()) !== heads.evm ||
        sandbox.emulator.latest.seq !== heads.wasm ||
        gaugeFingerprint(before) !== gaugeFingerprint(after)
      )
        continue;

      await this.#d.live.catchUp(heads);
      const evmBalances = await baseBalances(
        sandbox,
        chains.wallets,
        chains.pairs.filter((p) => p.chain === 'evm'),
        heads.evm,
      );
      const evmBook = (
        await Promise.all(chains.pairs.filter((p) => p.chain === 'evm').map((p) => chains.resting(p.id, heads.evm)))
      ).flat();
      const balances = new Map([...wasmBalances, ...evmBalances]);
      const evm = await this.#states('evm', heads.evm, cut, balances);
      const wasm = await this.#states('wasm', heads.wasm, cut, balances);
      // The replay and the chains' own views of the books must agree, or the truth itself is in doubt.
      const disagree = (['evm', 'wasm'] as const).filter((c) => {
        const replayed = (c === 'evm' ? evm : wasm)[1].resting.length;
        return replayed !== (c === 'evm' ? evmBook : wasmBook).length;
      });
      this.checks.push(
        ...compareGauges(n, after, {
          wallets: [
            { chain: 'evm', address: chains.wallets.evm },
            { chain: 'wasm', address: chains.wallets.wasm },
          ],
          pairs: chains.pairs.map((p) => ({ chain: p.chain as Chain, pairId: p.id })),
          states: { evm, wasm },
          crossIdTag: this.#d.crossIdTag,
        }),
      );
      const venueList = await this.#venueList(evmBook.length, wasmBook.length);
      const note = `block ${heads.evm}, ledger ${heads.wasm}; in flight ${evm[1].inflight} / ${wasm[1].inflight}${disagree.length === 0 ? '' : `; the replay disagrees with the book views on ${disagree.join(', ')}`}`;
      this.samples.push({ sample: n, atMs: cut, reached: true, note, venueList });
      return;
    }
    this.samples.push({
      sample: n,
      atMs: Date.now(),
      reached: false,
      note:
        behind === null
          ? `the chains or the gauges moved during each of ${ATTEMPTS} readings`
          : `no reading in ${CATCH_UP_MS / 1000} s: ${behind}`,
      venueList: {},
    });
  }

  /** The chain after the block or ledger before `head` and after `head`. */
  async #states(
    chain: Chain,
    head: number,
    cut: number,
    balances: ReadonlyMap<string, bigint>,
  ): Promise<[ChainState, ChainState]> {
    const { sandbox, chains, recorder, live, timeline } = this.#d;
    const orders = [...live.replay.orders.values()];
    const placements = recorder.calls.filter(
      (c) => c.chain === chain && c.method === 'send' && c.ok && c.call === 'place' && c.atMs < cut,
    );
    let inflight: (height: number) => Promise<number>;
    if (chain === 'evm') {
      inflight = async (height) => {
        const used = Number(
          BigInt(
            (await rpc(sandbox.evmNode.rpcUrl, 'eth_getTransactionCount', [
              chains.wallets.evm,
              `0x${height.toString(16)}`,
            ])) as string,
          ),
        );
        return new Set(placements.filter((c) => (c.nonce ?? -1) >= used).map((c) => c.nonce)).size;
      };
    } else {
      inflight = (height) =>
        Promise.resolve(
          placements.filter((c) => c.atMs > (timeline.published.wasm.get(height) ?? Number.POSITIVE_INFINITY)).length,
        );
    }
    const pairs = chains.pairs.filter((p) => p.chain === chain);
    const at = async (height: number, positions: Map<string, string>): Promise<ChainState> => {
      const resting = restingAt(orders, chain, height).map((o) => ({
        pairId: o.pairId,
        side: o.side,
        crossId: BigInt(o.crossId),
      }));
      return { height, resting, inflight: await inflight(height), positions };
    };
    const newest = new Map<string, string>();
    const previous = new Map<string, string>();
    for (const p of pairs) {
      const venuePair = sandbox.state.pairByIdOrSymbol(p.id);
      if (venuePair === undefined) throw new Error(`no pair ${p.id}`);
      const scales = derivePairRules(venuePair.record, venuePair.overrides).scales;
      // Balance change since the start, plus what our resting sells lock in a pre-funded book.
      const moved = baseFromNative((balances.get(p.id) ?? 0n) - (this.#baseline.get(p.id) ?? 0n), scales);
      const locked = p.prefunded
        ? restingAt(orders, chain, head)
            .filter((o) => o.pairId === p.id && o.side === 'sell')
            .reduce((n, o) => n + remainingAt(o, head), 0n)
        : 0n;
      const position = moved.plus(quantityFromRaw(locked, scales));
      newest.set(p.id, position.toFixed());
      previous.set(p.id, position.minus(quantityFromRaw(netFilledIn(orders, p.id, head), scales)).toFixed());
    }
    return [await at(head - 1, previous), await at(head, newest)];
  }

  /** The venue's open-order lists (they lag the chains by design) beside the books' own views. */
  async #venueList(evmBook: number, wasmBook: number): Promise<StateSample['venueList']> {
    const { sandbox, chains } = this.#d;
    const out: Partial<Record<Chain, { venue: number; chain: number }>> = {};
    for (const chain of ['evm', 'wasm'] as const) {
      const listed = await venueOpenOrders(sandbox.manifest.venue, chains.wallets[chain]);
      out[chain] = { venue: listed.length, chain: chain === 'evm' ? evmBook : wasmBook };
    }
    return out;
  }
}
