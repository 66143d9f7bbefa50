/**
 * The venue operator's hand on one order book, the same on both chains: set the phase, move the static
 * reference price, clear the day's orders, read the phase and the last execution price. Chain A goes through
 * signed operator transactions (waiting for their block); chain B through the emulator's operator calls,
 * which apply in the ledger being built.
 */
import { Interface } from 'ethers';
import { DltError } from '../../core/errors.ts';
import { PHASE_CODES, phaseOfCode } from '../evm/book-deploy.ts';
import { loadArtifacts } from '../evm/compile.ts';
import { rpc } from '../evm/node.ts';
import type { Phase } from '../matching/types.ts';
import { PHASE_NAMES } from '../wasm/contracts/order-book.ts';
import type { BookDeployment, Venue } from '../wasm/deploy.ts';
import type { WasmEmulator } from '../wasm/emulator.ts';
import { clearOrders, setPhase, setStaticReferencePrice } from '../wasm/operator.ts';
import { read } from '../wasm/scval.ts';
import { ethCall, type EvmSender } from './evm-sender.ts';

export interface BookOperator {
  readonly chain: 'evm' | 'wasm';
  setPhase(phase: Phase): Promise<void>;
  setStaticReferencePrice(priceRaw: bigint): Promise<void>;
  clearOrders(): Promise<void>;
  readPhase(): Promise<Phase>;
  /** Raw internal price; the static reference price until the first trade. */
  readLastPrice(): Promise<bigint>;
}

const OPERATOR_GAS = 150_000n;
const MAX_CLEAR_GAS = 25_000_000n;

export function evmBookOperator(sender: EvmSender, rpcUrl: string, orderBook: string): BookOperator {
  const iface = new Interface(loadArtifacts().contracts.OrderBook.abi as never);
  const send = async (fn: string, args: unknown[], gas: bigint) => {
    const receipt = await sender.send(orderBook, iface.encodeFunctionData(fn, args), gas);
    if (!receipt.status)
      throw new DltError('E_SANDBOX', `chain A ${fn} on ${orderBook} reverted`, {
        details: { part: 'operator', fn, hash: receipt.hash },
      });
  };
  const view = async (fn: string): Promise<bigint> => {
    const out = await ethCall(rpcUrl, orderBook, iface.encodeFunctionData(fn, []));
    return iface.decodeFunctionResult(fn, out)[0] as bigint;
  };
  return {
    chain: 'evm',
    setPhase: (phase) => send('setPhase', [PHASE_CODES[phase]], OPERATOR_GAS),
    setStaticReferencePrice: (priceRaw) => send('setStaticReferencePrice', [priceRaw], OPERATOR_GAS),
    async clearOrders() {
      const data = iface.encodeFunctionData('clearOrders', []);
      const estimate = BigInt(
        (await rpc(rpcUrl, 'eth_estimateGas', [{ from: sender.address, to: orderBook, data }])) as string,
      );
      const gas = estimate + estimate / 4n + 50_000n;
      await send('clearOrders', [], gas > MAX_CLEAR_GAS ? MAX_CLEAR_GAS : gas);
    },
    async readPhase() {
      const code = Number(await view('getOrderBookPhase'));
      const phase = phaseOfCode(code);
      if (phase === undefined)
        throw new DltError('E_SANDBOX', `chain A book ${orderBook} reports phase ${code}`, {
          details: { part: 'operator' },
        });
      return phase;
    },
    readLastPrice: () => view('getLastPrice'),
  };
}

const PHASE_BY_NAME = new Map(Object.entries(PHASE_NAMES).map(([k, v]) => [v, k as Phase]));

export function wasmBookOperator(emu: WasmEmulator, venue: Venue, d: BookDeployment): BookOperator {
  const admin = venue.operator.publicKey();
  const view = (fn: string) => {
    const out = emu.read({ source: admin, contract: d.book.address, fn, args: [] });
    if (!out.ok)
      throw new DltError('E_SANDBOX', `chain B ${fn} on ${d.book.address} failed: ${out.message}`, {
        details: { part: 'operator' },
      });
    return out.value;
  };
  return {
    chain: 'wasm',
    setPhase: async (phase) => setPhase(emu, venue, d, phase),
    setStaticReferencePrice: async (priceRaw) => setStaticReferencePrice(emu, venue, d, priceRaw),
    clearOrders: async () => clearOrders(emu, venue, d),
    async readPhase() {
      const name = read.symbol(view('get_order_book_phase'), 'phase');
      const phase = PHASE_BY_NAME.get(name);
      if (phase === undefined)
        throw new DltError('E_SANDBOX', `chain B book reports phase ${name}`, { details: { part: 'operator' } });
      return phase;
    },
    readLastPrice: async () => read.u64(view('get_last_price'), 'last price'),
  };
}
