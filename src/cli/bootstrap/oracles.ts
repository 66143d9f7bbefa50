/**
 * The `oracle` fair-value source's reads: a Chainlink-compatible aggregator on chain A (its consumer checks
 * applied: a positive answer of a complete round, `answeredInRound >= roundId`), a SEP-40 contract's
 * `lastprice` on chain B. Each answer becomes a price (quote per base) dated by the oracle's own time.
 */
import { StrKey } from '@stellar/stellar-sdk';
import { aggregatorAnswerProblem, AggregatorReader } from '../../chains/evm/price-oracle.ts';
import { Sep40Reader, type Sep40Asset } from '../../chains/wasm/price-oracle.ts';
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import type { OracleRead } from '../../engine/fair-value/build.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Connection } from './connection.ts';

function scaled(value: bigint, decimals: number): Decimal {
  return new Decimal(value.toString()).div(new Decimal(10).pow(decimals));
}

function unusable(address: string, message: string): DltError {
  return new DltError('E_FAIR_VALUE_SOURCE', `oracle ${address}: ${message}`, { details: { oracle: address } });
}

/** A chain B asset as the configuration names it: a contract (C...) or a symbol. */
export function sep40Asset(asset: string): Sep40Asset {
  return StrKey.isValidContract(asset) ? { stellar: asset } : { other: asset };
}

/** Reads of the connection's chains; a chain the connection lacks is an error naming it. */
export function oracleReads(c: Connection, logger: Logger, timeoutMs = 5_000): OracleRead {
  let evm: AggregatorReader | undefined;
  let wasm: Sep40Reader | undefined;
  return async (chain, address, asset) => {
    if (chain === 'evm') {
      if (c.evm === undefined) throw unusable(address, 'no chain A endpoint is configured');
      evm ??= new AggregatorReader(c.evm.rpcUrl, { timeoutMs, logger });
      const a = await evm.read(address);
      const problem = aggregatorAnswerProblem(a);
      if (problem !== null) throw unusable(address, problem);
      return { value: scaled(a.answer, a.decimals), atMs: Number(a.updatedAtSeconds) * 1000 };
    }
    if (c.wasm === undefined) throw unusable(address, 'no chain B endpoint is configured');
    wasm ??= new Sep40Reader(c.wasm.rpcUrl, c.wasm.networkPassphrase, { timeoutMs, logger });
    const p = await wasm.read(address, sep40Asset(asset));
    if (p === null) throw unusable(address, `lastprice(${asset}) has no price`);
    return { value: scaled(p.price, p.decimals), atMs: Number(p.timestampSeconds) * 1000 };
  };
}
