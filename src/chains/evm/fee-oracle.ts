/**
 * EIP-1559 fees from the node's own suggestions, under a configured cap. A suggestion is reused for about a block
 * and refreshed in the background after that (stale while revalidating), so that signing never waits for a round
 * trip except the very first time: the place-to-send path stays in the low milliseconds.
 */
import { DltError } from '../../core/errors.ts';
import { CHAIN_NODE, incidentsOf } from '../../telemetry/incidents.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Clock, FeeOptions } from './options.ts';
import type { EvmRpc } from './rpc-client.ts';

export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** Percent increase, rounded up so that a 10% minimum of the node is always met. */
function raise(v: bigint, percent: bigint): bigint {
  return (v * (100n + percent) + 99n) / 100n;
}

export class FeeOracle {
  readonly #rpc: EvmRpc;
  readonly #options: FeeOptions;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #logger: Logger;
  #current: { fees: Fees; baseFee: bigint; atMs: number } | null = null;
  #refreshing: Promise<void> | null = null;

  constructor(rpc: EvmRpc, options: FeeOptions, clock: Pick<Clock, 'now'>, logger: Logger) {
    this.#rpc = rpc;
    this.#options = options;
    this.#clock = clock;
    this.#logger = logger;
  }

  /**
   * Fees for a new transaction. Rejects with `E_CHAIN_TX_REFUSED` when the next block's base fee is above the
   * cap: such a transaction could not be included and would hold up every later nonce of the wallet.
   */
  async suggest(): Promise<Fees> {
    if (this.#current === null) {
      // The first suggestion is awaited (shared by concurrent callers); a failure refuses the command unsigned.
      await (this.#refreshing ??= this.#refresh().finally(() => {
        this.#refreshing = null;
      }));
    } else if (this.#clock.now() - this.#current.atMs >= this.#options.refreshMs && this.#refreshing === null) {
      this.#refreshing = this.#refresh()
        // The last suggestion is kept; a failing node is its incident.
        .catch((e: unknown) => incidentsOf(this.#logger).failed(CHAIN_NODE.evm, this.#clock.now(), 'fee refresh', e))
        .finally(() => {
          this.#refreshing = null;
        });
    }
    const c = this.#current!;
    if (c.baseFee >= this.#options.maxFeePerGasCap) {
      throw new DltError(
        'E_CHAIN_TX_REFUSED',
        `next base fee ${c.baseFee} wei is at or above the fee cap ${this.#options.maxFeePerGasCap} wei`,
        {
          details: { baseFee: c.baseFee.toString(), cap: this.#options.maxFeePerGasCap.toString() },
        },
      );
    }
    return c.fees;
  }

  async #refresh(): Promise<void> {
    const [history, tip] = await Promise.all([
      this.#rpc.feeHistory(1),
      this.#rpc.maxPriorityFeePerGas().catch(() => null),
    ]);
    const baseFee = history.baseFees.at(-1) as bigint;
    const o = this.#options;
    let priority = tip ?? 0n;
    if (priority < o.minPriorityFeePerGas) priority = o.minPriorityFeePerGas;
    let maxFee = baseFee * o.baseFeeMultiplier + priority;
    if (maxFee > o.maxFeePerGasCap) maxFee = o.maxFeePerGasCap;
    if (priority > maxFee) priority = maxFee;
    this.#current = {
      fees: { maxFeePerGas: maxFee, maxPriorityFeePerGas: priority },
      baseFee,
      atMs: this.#clock.now(),
    };
  }

  /**
   * Fees for a replacement at the same nonce: both fees raised by the bump percentage over the previous attempt,
   * and at least today's suggestion; null when the cap leaves no room for a raise the node would accept.
   */
  async bump(previous: Fees): Promise<Fees | null> {
    const now = await this.suggest().catch(() => previous);
    const o = this.#options;
    let maxFee = raise(previous.maxFeePerGas, o.bumpPercent);
    if (now.maxFeePerGas > maxFee) maxFee = now.maxFeePerGas;
    let priority = raise(previous.maxPriorityFeePerGas, o.bumpPercent);
    if (now.maxPriorityFeePerGas > priority) priority = now.maxPriorityFeePerGas;
    if (maxFee > o.maxFeePerGasCap) maxFee = o.maxFeePerGasCap;
    if (priority > maxFee) priority = maxFee;
    // Nodes refuse a replacement that does not raise both fees by 10%.
    if (maxFee < raise(previous.maxFeePerGas, 10n) || priority < raise(previous.maxPriorityFeePerGas, 10n)) return null;
    return { maxFeePerGas: maxFee, maxPriorityFeePerGas: priority };
  }
}
