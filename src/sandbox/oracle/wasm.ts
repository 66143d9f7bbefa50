/**
 * Chain B price feeds for the sandbox: one SEP-40 oracle contract quoting every feed's asset in one base
 * asset (as a Reflector contract does), deployed into the emulator, and the oracle operator that publishes
 * through the admin's signed `set_price` transactions: the due updates of a round go in one transaction,
 * stamped with the resolution tick of the ledger that will include it (chain time, like a block timestamp on
 * chain A; the heartbeat counts on the sandbox clock).
 */
import type { Keypair } from '@stellar/stellar-sdk';
import { DltError } from '../../core/errors.ts';
import { priceUpdateScVal, type Sep40Asset } from '../wasm/contracts/price-oracle.ts';
import { contractAddress, deployPriceOracle, type ContractAddress } from '../wasm/deploy.ts';
import type { WasmEmulator } from '../wasm/emulator.ts';
import { scv } from '../wasm/scval.ts';
import { signedCall } from '../wasm/signed-call.ts';
import {
  createOracleOperator,
  type OracleFeedSource,
  type OracleOperator,
  type OracleOperatorOptions,
} from './operator.ts';

export type { Sep40Asset } from '../wasm/contracts/price-oracle.ts';

/** Reflector's decimals. */
export const WASM_ORACLE_DECIMALS = 14;
/** Seconds per tick; Reflector's feeds tick every 5 minutes. */
export const WASM_ORACLE_RESOLUTION_SECONDS = 300;

export interface WasmOracleFeed extends OracleFeedSource {
  /** The quoted asset, e.g. `{ stellar: <base token contract C...> }` or `{ other: 'BOND26' }`. */
  readonly asset: Sep40Asset;
}

export interface WasmOraclesOptions extends OracleOperatorOptions {
  readonly emulator: WasmEmulator;
  /** The oracle's admin, the only account that may publish (start.ts: `deployed.wasm.operator`). */
  readonly admin: Keypair;
  /** What every price is quoted in, e.g. `{ other: 'EURe' }`. */
  readonly base: Sep40Asset;
  readonly feeds: readonly WasmOracleFeed[];
  /** Default 14. */
  readonly decimals?: number;
  /** Default 300 s. */
  readonly resolutionSeconds?: number;
  /** Salt of the contract address; default `price-oracle` (another name deploys another contract). */
  readonly name?: string;
}

export interface WasmOracles {
  readonly contract: ContractAddress;
  readonly admin: string;
  readonly base: Sep40Asset;
  readonly decimals: number;
  readonly resolutionSeconds: number;
  readonly feeds: readonly { readonly id: string; readonly asset: Sep40Asset }[];
  readonly operator: OracleOperator;
}

/** Deploys the oracle contract and returns it with its operator (not started: call `start()`). */
export function deployWasmOracles(options: WasmOraclesOptions): WasmOracles {
  const decimals = options.decimals ?? WASM_ORACLE_DECIMALS;
  const resolutionSeconds = options.resolutionSeconds ?? WASM_ORACLE_RESOLUTION_SECONDS;
  const emu = options.emulator;
  const oracle = deployPriceOracle(emu, options.admin, {
    name: options.name ?? 'price-oracle',
    base: options.base,
    assets: options.feeds.map((f) => f.asset),
    decimals,
    resolutionSeconds,
  });
  const operator = createOracleOperator(
    options.feeds,
    decimals,
    async (updates) => {
      const timestamp = oracle.tickOf(emu.nextCloseTime());
      const applied = await signedCall(emu, options.admin, oracle.address, 'set_price', [
        scv.vec(updates.map((u) => priceUpdateScVal((options.feeds[u.index] as WasmOracleFeed).asset, u.answer))),
        scv.u64(timestamp),
      ]);
      if (!applied.success)
        throw new DltError('E_SANDBOX', `chain B set_price failed in ledger ${applied.ledger}`, {
          details: { part: 'oracle', hash: applied.hash, error: applied.error },
        });
    },
    options,
  );
  return {
    contract: contractAddress(oracle.address),
    admin: options.admin.publicKey(),
    base: options.base,
    decimals,
    resolutionSeconds,
    feeds: options.feeds.map((f) => ({ id: f.id, asset: f.asset })),
    operator,
  };
}
