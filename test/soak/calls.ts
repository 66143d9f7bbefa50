/**
 * What a transaction of ours asked for, read from its own bytes (never from the bot): chain A calldata against
 * the order book and token ABIs, chain B contract invocations; and failure reasons through the project's own
 * error decoder (`src/core/venue-errors.ts`, `src/chains/evm/revert-decoder.ts`).
 */
import { Interface } from 'ethers';
import { revertError } from '../../src/chains/evm/revert-decoder.ts';
import { contractErrorByWasmCode, fromWasmContractCode } from '../../src/core/venue-errors.ts';
import { loadArtifacts } from '../../src/sandbox/evm/compile.ts';
import type { Sandbox } from '../../src/sandbox/venue/sandbox.ts';
import { read, type ScVal } from '../../src/sandbox/wasm/scval.ts';
import type { Call, Chain } from './model.ts';

const artifacts = loadArtifacts().contracts;
const BOOK = new Interface(artifacts.OrderBook.abi as never);
const TOKEN = new Interface(artifacts.EMoneyToken.abi as never);

export interface DecodedCall {
  readonly call: Call;
  readonly fn: string;
  readonly pairId: string | null;
  readonly orderId: string | null;
  readonly approval: { readonly token: string; readonly spender: string } | null;
}

/** The sandbox's pairs by order book and token address (lower-case hex on chain A, strkeys on chain B). */
export class PairIndex {
  readonly books = new Map<string, { readonly pairId: string; readonly chain: Chain }>();
  readonly tokens = new Set<string>();

  constructor(sandbox: Sandbox) {
    for (const p of sandbox.manifest.pairs) {
      const key = (a: { hex: string; strkey?: string | null }) =>
        p.chain === 'evm' ? a.hex.toLowerCase() : (a.strkey as string);
      this.books.set(key(p.orderBook), { pairId: p.id, chain: p.chain });
      this.tokens.add(key(p.baseToken));
      this.tokens.add(key(p.quoteToken));
    }
  }

  pairOf(book: string): string | null {
    return this.books.get(book.startsWith('0x') ? book.toLowerCase() : book)?.pairId ?? null;
  }
}

const kindOf = (fn: string): Call =>
  /^new_?(buy|sell)_?order$/i.test(fn)
    ? 'place'
    : /^cancel_?(buy|sell)_?order$/i.test(fn)
      ? 'cancel'
      : fn === 'approve'
        ? 'approve'
        : 'other';

export function decodeEvmCall(index: PairIndex, to: string | null, data: string): DecodedCall {
  const target = (to ?? '').toLowerCase();
  const pairId = index.pairOf(target);
  try {
    if (pairId !== null) {
      const parsed = BOOK.parseTransaction({ data });
      if (parsed !== null) {
        const call = kindOf(parsed.name);
        return {
          call,
          fn: parsed.name,
          pairId,
          orderId: call === 'cancel' ? (parsed.args[0] as bigint).toString() : null,
          approval: null,
        };
      }
    }
    if (index.tokens.has(target)) {
      const parsed = TOKEN.parseTransaction({ data });
      if (parsed?.name === 'approve')
        return {
          call: 'approve',
          fn: 'approve',
          pairId: null,
          orderId: null,
          approval: { token: target, spender: String(parsed.args[0]).toLowerCase() },
        };
    }
  } catch {
    // Not an order book or token call we know: reported as `other` below.
  }
  return { call: 'other', fn: data.slice(0, 10), pairId, orderId: null, approval: null };
}

export function decodeWasmCall(
  index: PairIndex,
  call: { readonly contract: string; readonly fn: string; readonly args: readonly ScVal[] } | null,
): DecodedCall {
  if (call === null) return { call: 'other', fn: 'unknown', pairId: null, orderId: null, approval: null };
  const kind = kindOf(call.fn);
  const pairId = index.pairOf(call.contract);
  if (kind === 'approve' && index.tokens.has(call.contract)) {
    return {
      call: 'approve',
      fn: call.fn,
      pairId: null,
      orderId: null,
      approval: { token: call.contract, spender: read.address(call.args[1], 'spender') },
    };
  }
  if (pairId === null) return { call: 'other', fn: call.fn, pairId: null, orderId: null, approval: null };
  return {
    call: kind,
    fn: call.fn,
    pairId,
    orderId: kind === 'cancel' ? read.u64(call.args[1], 'order_id').toString() : null,
    approval: null,
  };
}

/** A chain A revert's data as the project decodes it. */
export function evmReason(data: string | null): { code: string; name: string } {
  const e = revertError(data);
  const name = typeof e.details.name === 'string' ? e.details.name : e.message;
  return { code: e.code, name };
}

/** A chain B contract error code as the project decodes it. */
export function wasmReason(contractCode: number): { code: string; name: string } {
  const def = contractErrorByWasmCode(contractCode);
  return { code: fromWasmContractCode(contractCode).code, name: `#${contractCode} ${def?.name ?? 'unknown'}` };
}

/** The contract error of a chain B host error text (`Error(Contract, #8)`), or the text's first line. */
export function wasmReasonOfText(text: string): { code: string; name: string } {
  const m = /Error\(Contract, #(\d+)\)/.exec(text);
  if (m !== null) return wasmReason(Number(m[1]));
  return { code: 'E_VENUE_HOST_ERROR', name: (text.split('\n')[0] ?? text).slice(0, 80) };
}
