/**
 * The gas limit of each kind of transaction: a configured number, or estimated once per kind and contract and
 * cached (raised by a headroom, since a placement that matches costs more than the one estimated). A failed
 * estimate (the call would revert now, for instance while its approve is still in flight) falls back to the
 * default limit and is tried again next time.
 */
import type { Logger } from '../../telemetry/logger.ts';
import { DEFAULT_GAS_LIMITS, type TxKind } from './options.ts';
import type { CallRequest, EvmRpc } from './rpc-client.ts';

export class GasLimits {
  readonly #rpc: EvmRpc;
  readonly #limits: Readonly<Record<TxKind, bigint | 'estimate'>>;
  readonly #headroomPercent: bigint;
  readonly #logger: Logger;
  readonly #estimates = new Map<string, bigint>();

  constructor(
    rpc: EvmRpc,
    limits: Readonly<Record<TxKind, bigint | 'estimate'>>,
    headroomPercent: bigint,
    logger: Logger,
  ) {
    this.#rpc = rpc;
    this.#limits = limits;
    this.#headroomPercent = headroomPercent;
    this.#logger = logger;
  }

  /** Synchronous when configured or already estimated, so the common path adds no wait. */
  limit(kind: TxKind, call: CallRequest): bigint | Promise<bigint> {
    const configured = this.#limits[kind];
    if (configured !== 'estimate') return configured;
    const key = `${kind}:${call.to.toLowerCase()}`;
    return this.#estimates.get(key) ?? this.#estimate(key, kind, call);
  }

  async #estimate(key: string, kind: TxKind, call: CallRequest): Promise<bigint> {
    try {
      const gas = await this.#rpc.estimateGas(call);
      const limit = (gas * (100n + this.#headroomPercent)) / 100n;
      this.#estimates.set(key, limit);
      this.#logger.info(
        { kind, to: call.to, estimate: gas.toString(), limit: limit.toString() },
        'chain A gas limit estimated',
      );
      return limit;
    } catch (e) {
      this.#logger.warn({ kind, to: call.to, err: e }, 'chain A gas estimate failed; using the default limit');
      return DEFAULT_GAS_LIMITS[kind];
    }
  }
}
