/**
 * The subscriptions of one market-data connection: which channels are wanted, the id each subscription got
 * (AppSync names a subscription by the id the client chose, in `subscribe_success`, in its `data` events and
 * in `unsubscribe`), which ids await their `subscribe_success`, and the retry of a refused or unacknowledged
 * subscription with backoff. Everything goes back to idle when the connection drops and is sent again once
 * the next connection is acknowledged.
 */
import { DltError } from '../../core/errors.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import type { Random } from '../random.ts';
import { backoffDelay, type BackoffPolicy } from '../retry-policy.ts';
import {
  channelFor,
  subscribeMessage,
  unsubscribeMessage,
  type ChannelKind,
  type WsAuthorization,
} from './subscribe-messages.ts';

export type SubscriptionState = 'idle' | 'pending' | 'active';

export interface SubscriptionsOptions {
  readonly auth: WsAuthorization;
  readonly ackTimeoutMs: number;
  readonly retry: BackoffPolicy;
  readonly clock: Clock;
  readonly random: Random;
  readonly newId: () => string;
  /** Sends on the acknowledged connection; only called while `isOpen()`. */
  readonly send: (message: Record<string, unknown>) => void;
  /** True once the connection is acknowledged (`connection_ack`). */
  readonly isOpen: () => boolean;
  readonly onAcknowledged: (channel: string) => void;
  readonly onFailed: (channel: string, error: DltError, retryInMs: number) => void;
}

interface Subscription {
  state: SubscriptionState;
  id: string | undefined;
  failures: number;
  timer: Timer | undefined;
}

export class Subscriptions {
  readonly #options: SubscriptionsOptions;
  readonly #subs = new Map<string, Subscription>();
  /** Subscription id -> channel, for the ids sent on this connection and not yet ended. */
  readonly #ids = new Map<string, string>();
  /** Ids whose `unsubscribe` went out and awaits `unsubscribe_success`. */
  readonly #ending = new Map<string, string>();

  constructor(options: SubscriptionsOptions) {
    this.#options = options;
  }

  /** Wants a market (or `'*'`) on a channel (the order book's by default); false when already wanted. */
  add(symbol: string, kind?: ChannelKind): boolean {
    const channel = channelFor(symbol, kind);
    if (this.#subs.has(channel)) return false;
    this.#subs.set(channel, { state: 'idle', id: undefined, failures: 0, timer: undefined });
    this.#subscribe(channel);
    return true;
  }

  /** Stops wanting a market, ending its subscription by id; false when it was not wanted. */
  remove(symbol: string, kind?: ChannelKind): boolean {
    const channel = channelFor(symbol, kind);
    const sub = this.#subs.get(channel);
    if (sub === undefined) return false;
    const id = sub.id;
    this.#reset(sub);
    this.#subs.delete(channel);
    if (id !== undefined && this.#options.isOpen()) {
      this.#ending.set(id, channel);
      this.#options.send(unsubscribeMessage(id));
    }
    return true;
  }

  wants(symbol: string, kind?: ChannelKind): boolean {
    return this.#subs.has(channelFor(symbol, kind));
  }

  get size(): number {
    return this.#subs.size;
  }

  states(): Record<string, SubscriptionState> {
    return Object.fromEntries([...this.#subs].map(([channel, s]) => [channel, s.state]));
  }

  /** The channel of a live subscription id; undefined for an id that is not (or no longer) ours. */
  channelOf(id: string): string | undefined {
    return this.#ids.get(id);
  }

  /** The connection is acknowledged: subscribe to everything. */
  subscribeAll(): void {
    for (const channel of this.#subs.keys()) this.#subscribe(channel);
  }

  /** The connection closed: nothing is pending or active any more. */
  resetAll(): void {
    for (const sub of this.#subs.values()) this.#reset(sub);
    this.#ids.clear();
    this.#ending.clear();
  }

  /** A `subscribe_success`; returns its channel, or undefined for an id nothing waits for. */
  acknowledge(id: string): string | undefined {
    const channel = this.#ids.get(id);
    const sub = channel === undefined ? undefined : this.#subs.get(channel);
    if (channel === undefined || sub === undefined || sub.id !== id || sub.state !== 'pending') return undefined;
    sub.timer?.cancel();
    sub.timer = undefined;
    sub.state = 'active';
    sub.failures = 0;
    this.#options.onAcknowledged(channel);
    return channel;
  }

  /** A failure answer (`subscribe_error`, or an `error` naming the id); false when no subscription waits for that id. */
  refuse(id: string, why: string): boolean {
    const channel = this.#ids.get(id);
    const sub = channel === undefined ? undefined : this.#subs.get(channel);
    if (channel === undefined || sub === undefined || sub.id !== id || sub.state !== 'pending') return false;
    this.#failed(channel, why);
    return true;
  }

  /** An `unsubscribe_success` or `unsubscribe_error`; returns the channel it ended, undefined for an unknown id. */
  ended(id: string): string | undefined {
    const channel = this.#ending.get(id);
    this.#ending.delete(id);
    if (channel !== undefined) this.#ids.delete(id);
    return channel;
  }

  #subscribe(channel: string): void {
    const sub = this.#subs.get(channel);
    if (sub === undefined || !this.#options.isOpen()) return;
    this.#reset(sub);
    const id = this.#options.newId();
    sub.id = id;
    sub.state = 'pending';
    this.#ids.set(id, channel);
    this.#options.send(subscribeMessage(id, channel, this.#options.auth, this.#options.clock.now()));
    const ackMs = this.#options.ackTimeoutMs;
    sub.timer = this.#options.clock.setTimer(
      () => this.#failed(channel, `no subscribe_success within ${ackMs} ms`),
      ackMs,
    );
  }

  #failed(channel: string, why: string): void {
    const sub = this.#subs.get(channel);
    if (sub === undefined) return;
    this.#reset(sub);
    const retryInMs = backoffDelay(sub.failures, this.#options.retry, this.#options.random);
    sub.failures += 1;
    sub.timer = this.#options.clock.setTimer(() => this.#subscribe(channel), retryInMs);
    const error = new DltError('E_WS_SUBSCRIBE', `subscription to ${channel} failed: ${why}`, {
      details: { channel, failures: sub.failures, retryInMs },
    });
    this.#options.onFailed(channel, error, retryInMs);
  }

  #reset(sub: Subscription): void {
    sub.timer?.cancel();
    sub.timer = undefined;
    // An id given up on (refused, timed out, ended) is forgotten, so a late answer or event for it is ignored.
    if (sub.id !== undefined) this.#ids.delete(sub.id);
    sub.id = undefined;
    sub.state = 'idle';
  }
}
