/**
 * Chain B as the emulator records it: every ledger's applied transactions are written down as the ledger closes
 * (ours in full: the call, success, the contract error; everyone's position and called contract, to place token
 * movements), with the transactions the emulator dropped; after the run, every event of the retained ledgers
 * (order book events of every participant, token movements out of our wallet).
 */
import { describeScError } from '../../src/core/encoding/sc-error.ts';
import type { Sandbox } from '../../src/sandbox/venue/sandbox.ts';
import { read } from '../../src/sandbox/wasm/scval.ts';
import { decodeWasmCall, wasmReason, type PairIndex } from './calls.ts';
import type { ChainTx, Draw } from './model.ts';

export class WasmRecord {
  readonly txs: ChainTx[] = [];
  readonly dropped: { readonly hash: string; readonly ledger: number }[] = [];
  /** Every applied transaction: its ledger, position and the contract it called. */
  readonly #applied = new Map<string, { ledger: number; index: number; contract: string | null }>();
  readonly #sandbox: Sandbox;
  readonly #index: PairIndex;
  readonly #sources: ReadonlySet<string>;
  readonly #unlisten: () => void;

  constructor(sandbox: Sandbox, index: PairIndex, sources: ReadonlySet<string>, onClose: () => void) {
    this.#sandbox = sandbox;
    this.#index = index;
    this.#sources = sources;
    this.#unlisten = sandbox.emulator.onLedgerClosed((closed) => {
      const ledger = closed.ledger.seq;
      for (const t of closed.transactions) {
        this.#applied.set(t.hash, { ledger, index: t.applicationOrder, contract: t.call?.contract ?? null });
        if (!this.#sources.has(t.source)) continue;
        const d = decodeWasmCall(index, t.call);
        const reason =
          t.success || t.error === null
            ? null
            : t.error.type === 0
              ? wasmReason(t.error.contractCode)
              : { code: 'E_VENUE_HOST_ERROR', name: describeScError(t.error) };
        this.txs.push({
          chain: 'wasm',
          hash: t.hash,
          height: ledger,
          index: t.applicationOrder,
          ...d,
          success: t.success,
          code: reason?.code ?? null,
          name: reason?.name ?? null,
        });
      }
      for (const hash of closed.dropped) this.dropped.push({ hash, ledger });
      onClose();
    });
  }

  stop(): void {
    this.#unlisten();
  }

  /** Ledger of an applied transaction (anyone's), if one was seen. */
  ledgerOf(hash: string): number | undefined {
    return this.#applied.get(hash)?.ledger;
  }

  /** Token movements out of `wallet` in the retained ledgers, each with the contract its transaction called. */
  draws(wallet: string): Draw[] {
    const draws: Draw[] = [];
    const all = this.#sandbox.emulator
      .events()
      .query(
        { ledger: 0, txIndex: 0, opIndex: 0, eventIndex: 0 },
        Number.MAX_SAFE_INTEGER,
        [],
        Number.MAX_SAFE_INTEGER,
      );
    for (const e of all) {
      if (!this.#index.tokens.has(e.contractId)) continue;
      const [name, from] = e.topics;
      if (
        name?.type !== 15 ||
        name.sym.toString() !== 'transfer' ||
        from?.type !== 18 ||
        read.address(from, 'from') !== wallet
      )
        continue;
      const tx = this.#applied.get(e.txHash);
      if (tx === undefined || tx.contract === null) continue;
      draws.push({ chain: 'wasm', token: e.contractId, spender: tx.contract, height: tx.ledger, index: tx.index });
    }
    return draws;
  }
}
