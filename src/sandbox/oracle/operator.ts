/**
 * The oracle operator of the sandbox: it watches each feed's true value and publishes an answer when the
 * decision of `decision.ts` says so (deviation or heartbeat on the sandbox clock), through a chain-specific
 * transmitter. Rounds run one at a time; the due updates of a round go out together. Faults for tests and
 * demonstrations: `freeze` (nothing is published, the answer grows old), `jump` (an answer `bps` away from
 * the true value is published at once, as a faulty oracle would; the next regular round corrects it).
 *
 * The check runs every `pollMs` of wall time (timers are wall time in the sandbox, its clock may run faster);
 * `poll()` runs one round now, which is what tests call.
 */
import type { Logger } from 'pino';
import type { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import {
  checkDecimals,
  checkPolicy,
  decideUpdate,
  DEFAULT_POLICY,
  jumped,
  scaleAnswer,
  type FeedPolicy,
  type LastAnswer,
  type UpdateReason,
} from './decision.ts';

/** One feed: an id (a pair id, a label) and its true value now, quote per base in human units. */
export interface OracleFeedSource {
  readonly id: string;
  readonly value: () => Decimal;
}

export interface OracleOperatorOptions {
  /** The sandbox clock, epoch milliseconds: what the heartbeat counts. */
  readonly nowMs: () => number;
  /** Default 50 bp. */
  readonly deviationBps?: number;
  /** Default one hour of sandbox time. */
  readonly heartbeatMs?: number;
  /** Wall milliseconds between checks once started; default 1000. */
  readonly pollMs?: number;
  readonly logger?: Logger;
}

/** An answer to publish: the feed's index in the list and the scaled answer. */
export interface FeedUpdate {
  readonly index: number;
  readonly answer: bigint;
}

/** Publishes a round's updates on the chain; resolves once they are applied, rejects when they are not. */
export type Transmit = (updates: readonly FeedUpdate[]) => Promise<void>;

export interface PublishedUpdate {
  readonly id: string;
  readonly answer: bigint;
  readonly reason: UpdateReason | 'jump';
}

export interface OracleFeedState {
  readonly id: string;
  readonly decimals: number;
  readonly frozen: boolean;
  /** The last published answer (scaled), null before the first. */
  readonly answer: bigint | null;
  /** When it was published, sandbox epoch ms. */
  readonly answerAtMs: number | null;
  readonly reason: UpdateReason | 'jump' | null;
  /** Published by `jump` and not corrected yet. */
  readonly faulty: boolean;
  readonly updates: number;
}

export interface OracleOperator {
  /** Publishes the first answers (resolves once they are applied), then checks every `pollMs`. */
  start(): Promise<void>;
  /** Stops checking; resolves once a round under way has ended. */
  stop(): Promise<void>;
  /** One round now: what was published. */
  poll(): Promise<readonly PublishedUpdate[]>;
  /**
   * No feed (or only `feedId`) publishes until `unfreeze`; resolves once a round already under way has landed,
   * so `state` then shows the answer that stays.
   */
  freeze(feedId?: string): Promise<void>;
  unfreeze(feedId?: string): void;
  /** Publishes at once an answer `bps` away from the true value (every feed, or `feedId`). */
  jump(bps: number, feedId?: string): Promise<readonly PublishedUpdate[]>;
  state(): readonly OracleFeedState[];
}

interface Feed {
  readonly source: OracleFeedSource;
  frozen: boolean;
  last: (LastAnswer & { readonly reason: UpdateReason | 'jump' }) | null;
  updates: number;
}

type Published = { readonly feed: Feed; readonly answer: bigint; readonly reason: UpdateReason | 'jump' };

/** The operator of `feeds`, whose answers carry `decimals` places and go out through `transmit`. */
export function createOracleOperator(
  feeds: readonly OracleFeedSource[],
  decimals: number,
  transmit: Transmit,
  options: OracleOperatorOptions,
): OracleOperator {
  return new FeedOperator(feeds, decimals, transmit, options);
}

class FeedOperator implements OracleOperator {
  readonly #feeds: Feed[];
  readonly #decimals: number;
  readonly #transmit: Transmit;
  readonly #options: OracleOperatorOptions;
  readonly #policy: FeedPolicy;
  #running: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;

  constructor(
    feeds: readonly OracleFeedSource[],
    decimals: number,
    transmit: Transmit,
    options: OracleOperatorOptions,
  ) {
    this.#policy = checkPolicy({
      deviationBps: options.deviationBps ?? DEFAULT_POLICY.deviationBps,
      heartbeatMs: options.heartbeatMs ?? DEFAULT_POLICY.heartbeatMs,
    });
    this.#decimals = checkDecimals(decimals);
    if (new Set(feeds.map((f) => f.id)).size !== feeds.length)
      throw new DltError('E_SANDBOX', 'oracle feed ids must be distinct', { details: { part: 'oracle' } });
    this.#feeds = feeds.map((source) => ({ source, frozen: false, last: null, updates: 0 }));
    this.#transmit = transmit;
    this.#options = options;
  }

  async start(): Promise<void> {
    if (this.#timer !== null) return;
    await this.poll();
    this.#timer = setInterval(() => {
      this.poll().catch((e: unknown) =>
        this.#options.logger?.warn({ err: e }, 'oracle round failed; tried again next time'),
      );
    }, this.#options.pollMs ?? 1000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  poll(): Promise<readonly PublishedUpdate[]> {
    return this.#serial(() => {
      const nowMs = this.#options.nowMs();
      const due = this.#feeds.flatMap((feed): Published[] => {
        const candidate = scaleAnswer(feed.source.value(), this.#decimals);
        const reason = decideUpdate({ last: feed.last, candidate, nowMs, frozen: feed.frozen }, this.#policy);
        return reason === null ? [] : [{ feed, answer: candidate, reason }];
      });
      return this.#publish(due);
    });
  }

  freeze(feedId?: string): Promise<void> {
    for (const f of this.#select(feedId)) f.frozen = true;
    return this.#running.then(() => undefined);
  }

  unfreeze(feedId?: string): void {
    for (const f of this.#select(feedId)) f.frozen = false;
  }

  jump(bps: number, feedId?: string): Promise<readonly PublishedUpdate[]> {
    const feeds = this.#select(feedId);
    return this.#serial(() =>
      this.#publish(
        feeds.map((feed) => ({
          feed,
          answer: scaleAnswer(jumped(feed.source.value(), bps), this.#decimals),
          reason: 'jump' as const,
        })),
      ),
    );
  }

  state(): readonly OracleFeedState[] {
    return this.#feeds.map((f) => ({
      id: f.source.id,
      decimals: this.#decimals,
      frozen: f.frozen,
      answer: f.last?.answer ?? null,
      answerAtMs: f.last?.atMs ?? null,
      reason: f.last?.reason ?? null,
      faulty: f.last?.faulty ?? false,
      updates: f.updates,
    }));
  }

  #select(feedId: string | undefined): Feed[] {
    if (feedId === undefined) return this.#feeds;
    const found = this.#feeds.filter((f) => f.source.id === feedId);
    if (found.length === 0)
      throw new DltError('E_SANDBOX', `no oracle feed ${feedId}`, { details: { part: 'oracle', feedId } });
    return found;
  }

  /** Runs `fn` after the round under way, so two rounds never publish at once. */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#running.then(fn);
    this.#running = next.catch(() => undefined);
    return next;
  }

  /** Transmits the picked answers; only once they are applied do they count as the feeds' answers. */
  async #publish(picked: readonly Published[]): Promise<readonly PublishedUpdate[]> {
    if (picked.length === 0) return [];
    await this.#transmit(picked.map((p) => ({ index: this.#feeds.indexOf(p.feed), answer: p.answer })));
    const atMs = this.#options.nowMs();
    for (const { feed, answer, reason } of picked) {
      feed.last = { answer, atMs, faulty: reason === 'jump', reason };
      feed.updates++;
    }
    return picked.map((p) => ({ id: p.feed.source.id, answer: p.answer, reason: p.reason }));
  }
}
