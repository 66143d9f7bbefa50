/**
 * A recorder in front of each chain's public RPC address: the bot is pointed at it (through its own copy of the
 * manifest) and every write call it sends passes through and is written down with the node's answer and the
 * time it left the bot. Chain A: every `eth_sendRawTransaction` (accepted or refused by the node), and every
 * simulation of a placement or cancellation (`eth_call` at the latest block). Chain B:
 * every `sendTransaction` (PENDING, TRY_AGAIN_LATER, ERROR) and every `simulateTransaction` of a write call
 * (a placement, cancellation or approval refused there is never signed, so this is the only place it shows).
 */
import { Transaction as EvmTransaction } from 'ethers';
import { xdr as sdkXdr } from '@stellar/stellar-sdk';
import { sha256 } from '../../src/sandbox/wasm/crypto.ts';
import { fromScAddress } from '../../src/sandbox/wasm/scval.ts';
import { parseEnvelope, TX } from '../../src/sandbox/wasm/tx-check.ts';
import { startRpcProxy, type RpcExchange, type RpcProxy } from '../../src/sandbox/venue/rpc-proxy.ts';
import { decodeEvmCall, decodeWasmCall, evmReason, wasmReasonOfText, type PairIndex } from './calls.ts';
import type { SentCall } from './model.ts';

interface JsonRpcCall {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

interface JsonRpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly message?: unknown };
}

/** Request and answer pairs of one exchange (a batch is several). */
function pairsOf(x: RpcExchange): { call: JsonRpcCall; answer: JsonRpcAnswer | undefined }[] {
  try {
    const req = JSON.parse(x.request) as JsonRpcCall | JsonRpcCall[];
    const res = JSON.parse(x.response) as JsonRpcAnswer | JsonRpcAnswer[];
    const calls = Array.isArray(req) ? req : [req];
    const answers = Array.isArray(res) ? res : [res];
    return calls.map((call) => ({
      call,
      answer: answers.find((a) => a.id === call.id) ?? (answers.length === 1 ? answers[0] : undefined),
    }));
  } catch {
    return [];
  }
}

/** The recorders inject no faults: every draw is above any fault rate. */
const NEVER = () => 1;

export class RpcRecorder {
  readonly calls: SentCall[] = [];
  /**
   * Chain A simulations (`eth_call` at the latest block) of our write calls. Not refusals by themselves: the bot
   * may drop a verdict that went stale and send anyway; they time the refusals its log confirms.
   */
  readonly evmSimulations: SentCall[] = [];
  /** Chain B sources with a transaction accepted into the queue and not yet closed in a ledger. */
  readonly #pendingSources = new Set<string>();
  /** Chain B: TRY_AGAIN_LATER answers that met a pending transaction of the same source. */
  readonly busyAnswers = new Set<SentCall>();
  readonly #index: PairIndex;
  readonly #networkId: Uint8Array;
  readonly #evmWallet: string;
  proxies: { evm: RpcProxy; wasm: RpcProxy } | null = null;

  constructor(index: PairIndex, o: { readonly passphrase: string; readonly evmWallet: string }) {
    this.#index = index;
    this.#networkId = sha256(Buffer.from(o.passphrase));
    this.#evmWallet = o.evmWallet.toLowerCase();
  }

  async start(targets: { evm: string; wasm: string }): Promise<{ evm: string; wasm: string }> {
    const evm = await startRpcProxy({ port: 0, target: targets.evm, random: NEVER, observe: (x) => this.#evm(x) });
    const wasm = await startRpcProxy({ port: 0, target: targets.wasm, random: NEVER, observe: (x) => this.#wasm(x) });
    this.proxies = { evm, wasm };
    return { evm: evm.url, wasm: wasm.url };
  }

  async stop(): Promise<void> {
    await this.proxies?.evm.close();
    await this.proxies?.wasm.close();
  }

  /** A chain B ledger closed: every queued transaction was applied or dropped. */
  ledgerClosed(): void {
    this.#pendingSources.clear();
  }

  /** Chain B source accounts with a transaction waiting for the next ledger. */
  get pendingSources(): number {
    return this.#pendingSources.size;
  }

  #evm(x: RpcExchange): void {
    for (const { call, answer } of pairsOf(x)) {
      if (call.method === 'eth_call' && Array.isArray(call.params)) {
        this.#evmCall(x.sentMs, call.params, answer);
        continue;
      }
      if (call.method !== 'eth_sendRawTransaction' || !Array.isArray(call.params)) continue;
      let tx: EvmTransaction;
      try {
        tx = EvmTransaction.from(String(call.params[0]));
      } catch {
        continue;
      }
      if ((tx.from ?? '').toLowerCase() !== this.#evmWallet) continue;
      const d = decodeEvmCall(this.#index, tx.to, tx.data);
      const refusal = answer?.error === undefined ? null : String(answer.error.message ?? 'refused');
      this.calls.push({
        chain: 'evm',
        atMs: x.sentMs,
        method: 'send',
        hash: tx.hash,
        source: this.#evmWallet,
        call: d.call,
        fn: d.fn,
        pairId: d.pairId,
        orderId: d.orderId,
        ok: refusal === null,
        code: refusal === null ? null : 'E_CHAIN_TX_REFUSED',
        name: refusal,
        nonce: tx.nonce,
      });
    }
  }

  #evmCall(atMs: number, params: unknown[], answer: JsonRpcAnswer | undefined): void {
    const [request, tag] = params as [
      { from?: unknown; to?: unknown; data?: unknown; input?: unknown } | undefined,
      unknown,
    ];
    // Replays of a mined transaction name its block; a simulation asks about the latest state.
    if (request === undefined || (tag !== 'latest' && tag !== 'pending' && tag !== undefined)) return;
    if (String(request.from ?? '').toLowerCase() !== this.#evmWallet) return;
    const d = decodeEvmCall(
      this.#index,
      typeof request.to === 'string' ? request.to : null,
      String(request.data ?? request.input ?? '0x'),
    );
    if (d.call !== 'place' && d.call !== 'cancel') return;
    const error = answer?.error as { data?: unknown } | undefined;
    const reason = error === undefined ? null : evmReason(typeof error.data === 'string' ? error.data : null);
    this.evmSimulations.push({
      chain: 'evm',
      atMs,
      method: 'simulate',
      hash: null,
      source: this.#evmWallet,
      call: d.call,
      fn: d.fn,
      pairId: d.pairId,
      orderId: d.orderId,
      ok: reason === null,
      code: reason?.code ?? null,
      name: reason?.name ?? null,
    });
  }

  #wasm(x: RpcExchange): void {
    for (const { call, answer } of pairsOf(x)) {
      const method =
        call.method === 'sendTransaction' ? 'send' : call.method === 'simulateTransaction' ? 'simulate' : null;
      if (method === null) continue;
      const envelope = (call.params as { transaction?: unknown } | null)?.transaction;
      if (typeof envelope !== 'string') continue;
      let parsed;
      try {
        parsed = parseEnvelope(envelope, this.#networkId);
      } catch {
        continue;
      }
      if ('unsupported' in parsed) continue;
      const body = parsed.tx.operations[0]?.body;
      const invoke =
        body?.type === 24 && body.invokeHostFunctionOp.hostFunction.type === 0
          ? body.invokeHostFunctionOp.hostFunction.invokeContract
          : null;
      const d = decodeWasmCall(
        this.#index,
        invoke === null
          ? null
          : { contract: fromScAddress(invoke.contractAddress), fn: invoke.functionName.toString(), args: invoke.args },
      );
      // Reads (configuration, balances, allowances, phases) are simulated too; only write calls are ours to count.
      if (d.call === 'other') continue;
      const result = (answer?.result ?? {}) as { status?: unknown; error?: unknown; errorResultXdr?: unknown };
      let ok: boolean;
      let code: string | null = null;
      let name: string | null = null;
      if (answer?.error !== undefined) {
        ok = false;
        code = 'E_CHAIN_RPC';
        name = String(answer.error.message ?? 'rpc error');
      } else if (method === 'simulate') {
        ok = typeof result.error !== 'string';
        if (!ok) ({ code, name } = wasmReasonOfText(String(result.error)));
      } else {
        const status = String(result.status);
        ok = status === 'PENDING' || status === 'DUPLICATE';
        if (status === 'TRY_AGAIN_LATER') {
          code = 'TRY_AGAIN_LATER';
          name = 'TRY_AGAIN_LATER';
        } else if (!ok) {
          code = 'E_CHAIN_TX_REFUSED';
          name = `${status} ${resultCode(result.errorResultXdr)}`.trim();
        }
      }
      const sent: SentCall = {
        chain: 'wasm',
        atMs: x.sentMs,
        method,
        hash: method === 'send' ? parsed.hash : null,
        source: parsed.source,
        call: d.call,
        fn: d.fn,
        pairId: d.pairId,
        orderId: d.orderId,
        ok,
        code,
        name,
      };
      if (code === 'TRY_AGAIN_LATER' && this.#pendingSources.has(parsed.source)) this.busyAnswers.add(sent);
      if (method === 'send' && ok) this.#pendingSources.add(parsed.source);
      this.calls.push(sent);
    }
  }
}

const TX_NAMES = new Map<number, string>(Object.entries(TX).map(([name, code]) => [code, `tx ${name}`]));

function resultCode(b64: unknown): string {
  if (typeof b64 !== 'string') return '';
  try {
    const code = sdkXdr.TransactionResult.schema.decode(Buffer.from(b64, 'base64')).result.code;
    return TX_NAMES.get(code) ?? `tx code ${code}`;
  } catch {
    return '';
  }
}
