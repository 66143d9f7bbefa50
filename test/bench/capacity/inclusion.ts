/**
 * Whether the bot's new quotes were included in the next block or ledger after a book change, measured the
 * soak's way (test/soak/README.md, "Latency"): the soak's timeline of block and ledger publications, its
 * replay of every order book event from the chains, the bot's state file for when each order was decided,
 * and `responses()` over them. Runs in the capacity benchmark's sandbox process, which hosts the chain B
 * emulator the timeline and the replay read.
 */
import { writeFileSync } from 'node:fs';
import { placementsOf, responses, type Responses } from '../../soak/analysis.ts';
import { readBotRecord } from '../../soak/bot-record.ts';
import { LiveBooks } from '../../soak/live-books.ts';
import type { Chain } from '../../soak/model.ts';
import { Timeline } from '../../soak/timeline.ts';
import type { Sandbox } from '../../../src/sandbox/venue/sandbox.ts';

export interface InclusionRequest {
  /** The bot's state file and log. */
  readonly store: string;
  readonly log: string;
  /** The window: book changes answered by decisions taken in [fromMs, toMs). */
  readonly fromMs: number;
  readonly toMs: number;
}

export interface Inclusion {
  readonly responses: readonly Responses[];
  /** Orders the bot decided and sent in the window that no block or ledger carried when this was read. */
  readonly notOnChain: Readonly<Record<Chain, number>>;
  /** Orders decided in the window whose placement a newer decision superseded before it was signed. */
  readonly unsent: Readonly<Record<Chain, number>>;
}

/** Blocks and ledgers waited for after the window before reading, so that its last decisions can land. */
export const SETTLE: Readonly<Record<Chain, number>> = { evm: 2, wasm: 2 };

export class InclusionWatch {
  readonly #timeline: Timeline;
  readonly #live: LiveBooks;

  constructor(sandbox: Sandbox) {
    this.#timeline = new Timeline(sandbox);
    const mm = (chain: Chain) => sandbox.manifest.wallets.find((w) => w.chain === chain && w.marketMaker)?.address;
    const evm = mm('evm');
    const wasm = mm('wasm');
    if (evm === undefined || wasm === undefined) throw new Error('the sandbox has no market-maker wallet on a chain');
    this.#live = new LiveBooks(sandbox, { evm, wasm });
  }

  start(): Promise<void> {
    return this.#timeline.start();
  }

  stop(): void {
    this.#timeline.stop();
  }

  async measure(r: InclusionRequest): Promise<Inclusion> {
    await this.#timeline.pass(SETTLE);
    await this.#live.catchUp(this.#timeline.head);
    const bot = readBotRecord(r.store, r.log);
    const ours = [...this.#live.replay.orders.values()];
    const excluded: [number, number][] = [
      [0, r.fromMs],
      [r.toMs, Number.POSITIVE_INFINITY],
    ];
    const onChain = new Set(ours.map((o) => `${o.chain}|${o.crossId}`));
    const notOnChain = { evm: 0, wasm: 0 };
    const unsent = { evm: 0, wasm: 0 };
    for (const o of bot.orders) {
      if (o.createdMs < r.fromMs || o.createdMs >= r.toMs || onChain.has(`${o.chain}|${o.clientOrderId}`)) continue;
      if (o.sent) notOnChain[o.chain] += 1;
      else unsent[o.chain] += 1;
    }
    const placements = placementsOf(ours, bot.byClientId);
    const dump = process.env.CAPACITY_DUMP;
    if (dump !== undefined) {
      const published = { evm: [...this.#timeline.published.evm], wasm: [...this.#timeline.published.wasm] };
      const what = { window: r, placements, changes: [...this.#live.replay.changes], published, orders: bot.orders };
      writeFileSync(
        dump,
        JSON.stringify(what, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      );
    }
    return {
      responses: responses(placements, this.#live.replay.changes, this.#timeline.published, excluded),
      notOnChain,
      unsent,
    };
  }
}
