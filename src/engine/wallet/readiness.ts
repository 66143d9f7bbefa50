/**
 * Whether a wallet may trade, kept by reconciling until it may: a reconciliation that fails (the venue refuses
 * the credentials, a node is down) or leaves the wallet not ready (an outcome the chain has not decided) is
 * tried again with back-off, the first pause doubling up to the longest, and `current` says why the wallet is
 * not ready meanwhile. A failure that repeats is logged once while it repeats.
 */
import { backoff } from '../../core/backoff.ts';
import type { Clock } from '../../core/clock.ts';
import { isDltError } from '../../core/errors.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { incidentsOf, type Incidents } from '../../telemetry/incidents.ts';
import type { ReconcileReport } from './recovery/reconciler.ts';
import { Signal } from './signals.ts';

/** Whether the wallet may trade, and if not, why (shown in `/readyz`). */
export interface WalletReadiness {
  readonly ready: boolean;
  /** Why not, in words; empty when ready. */
  readonly detail: string;
  /** A short label of the reason (an error code, `reconciling`, `unsettled`); empty when ready. */
  readonly reason: string;
}

export interface ReadinessOptions {
  readonly reconcile: () => Promise<ReconcileReport>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly labels: { readonly chain: string; readonly wallet: string };
  /** Back-off: first pause, doubling up to the longest (default 1 s to 60 s). */
  readonly retry?: { readonly firstMs?: number; readonly maxMs?: number };
}

export class Readiness {
  readonly #options: ReadinessOptions;
  readonly #retry: { readonly firstMs: number; readonly maxMs: number };
  readonly #incidents: Incidents;
  readonly #kind: string;
  #readiness: WalletReadiness = { ready: false, detail: 'not reconciled yet', reason: 'reconciling' };
  /** Raised whenever the wallet becomes ready or stops being ready. */
  readonly changed = new Signal<WalletReadiness>();
  #attempts = 0;
  #retrying: Promise<void> | null = null;
  readonly #stopping = new AbortController();

  constructor(options: ReadinessOptions) {
    this.#options = options;
    this.#retry = { firstMs: options.retry?.firstMs ?? 1_000, maxMs: options.retry?.maxMs ?? 60_000 };
    this.#incidents = incidentsOf(options.logger);
    this.#kind = `${options.labels.chain} wallet reconciliation`;
  }

  get current(): WalletReadiness {
    return this.#readiness;
  }

  /** The first reconciliation, then, until ready, more in the background; the first run's report, or null when it failed. */
  async untilReady(): Promise<ReconcileReport | null> {
    const first = await this.attempt('at start');
    if (first?.ready !== true) void this.keepTrying();
    return first;
  }

  /** No more attempts; a pause under way ends now. */
  stop(): void {
    this.#stopping.abort();
  }

  #set(r: WalletReadiness): void {
    const changed = r.ready !== this.#readiness.ready;
    this.#readiness = r;
    if (changed) this.changed.emit(r);
  }

  /** One reconciliation; never throws: a failure or a not-ready result is logged (once while it repeats) and kept in `current`. */
  async attempt(why: string): Promise<ReconcileReport | null> {
    const labels = this.#options.labels;
    if (this.#stopping.signal.aborted) return null;
    if (!this.#readiness.ready)
      this.#readiness = {
        ...this.#readiness,
        detail: `reconciling (${why}${this.#attempts > 0 ? `, attempt ${this.#attempts + 1}` : ''})`,
      };
    else this.#set({ ready: false, detail: `reconciling (${why})`, reason: 'reconciling' });
    try {
      const report = await this.#options.reconcile();
      if (report.ready) {
        this.#incidents.ended(this.#kind);
        this.#attempts = 0;
        this.#set({ ready: true, detail: '', reason: '' });
        return report;
      }
      this.#attempts++;
      const reason = report.inventory.comparable ? 'not comparable' : report.inventory.reason;
      // One stable signature, so that the count goes on while the number of unsettled orders changes.
      this.#incidents.failed(
        this.#kind,
        this.#options.clock.now(),
        'not ready; trying again',
        { code: 'unsettled', reason },
        {
          ...labels,
          attempt: this.#attempts,
        },
      );
      this.#set({
        ready: false,
        detail: `not ready: ${reason}; trying again in ${this.#delay() / 1000} s (attempt ${this.#attempts})`,
        reason: 'unsettled',
      });
      return report;
    } catch (e) {
      this.#attempts++;
      const code = isDltError(e) ? e.code : 'unexpected';
      this.#incidents.failed(
        this.#kind,
        this.#options.clock.now(),
        'failed; the wallet is not ready; trying again',
        e,
        {
          ...labels,
          attempt: this.#attempts,
          retryInMs: this.#delay(),
        },
      );
      this.#set({
        ready: false,
        detail: `reconciliation failed (${code}: ${e instanceof Error ? e.message : String(e)}); trying again in ${this.#delay() / 1000} s (attempt ${this.#attempts})`,
        reason: code,
      });
      return null;
    }
  }

  /** The pause before the next attempt: `firstMs` after the first failure, doubling up to `maxMs`. */
  #delay(): number {
    return backoff(this.#attempts - 1, { baseMs: this.#retry.firstMs, capMs: this.#retry.maxMs });
  }

  /** Tries again with back-off until ready or stopped; one loop at a time. */
  keepTrying(): Promise<void> {
    this.#retrying ??= (async () => {
      try {
        while (!this.#readiness.ready && !this.#stopping.signal.aborted) {
          try {
            await this.#options.clock.sleep(this.#delay(), this.#stopping.signal);
          } catch {
            return;
          }
          await this.attempt('again');
        }
      } finally {
        this.#retrying = null;
      }
    })();
    return this.#retrying;
  }
}
