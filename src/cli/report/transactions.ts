/** The report's transactions: those signed in the day, by chain, wallet and kind, with what the chains charged. */
import { nativeFromRaw } from '../../core/units.ts';
import type { Store } from '../../store/store.ts';

export interface TxGroup {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly kind: string;
  readonly sent: number;
  readonly included: number;
  readonly failed: number;
  readonly other: number;
  /** Charged fees of the included and failed ones, native base units (wei, stroops), decimal text. */
  readonly fee: string;
  /** The same in native tokens (18 decimals on chain A, 7 on chain B). */
  readonly feeNative: string;
}

export function transactionGroups(store: Store, from: number, to: number): TxGroup[] {
  const groups = new Map<
    string,
    {
      chain: 'evm' | 'wasm';
      wallet: string;
      kind: string;
      sent: number;
      included: number;
      failed: number;
      other: number;
      fee: bigint;
    }
  >();
  for (const t of store.transactions.signedBetween(from, to)) {
    const key = `${t.chain}|${t.wallet}|${t.kind}`;
    const g = groups.get(key) ?? {
      chain: t.chain,
      wallet: t.wallet,
      kind: t.kind,
      sent: 0,
      included: 0,
      failed: 0,
      other: 0,
      fee: 0n,
    };
    g.sent += 1;
    if (t.status === 'included') g.included += 1;
    else if (t.status === 'failed') g.failed += 1;
    else g.other += 1;
    g.fee += t.fee ?? 0n;
    groups.set(key, g);
  }
  return [...groups.values()]
    .toSorted(
      (a, b) => a.chain.localeCompare(b.chain) || a.wallet.localeCompare(b.wallet) || a.kind.localeCompare(b.kind),
    )
    .map((g) => ({
      ...g,
      fee: g.fee.toString(),
      feeNative: nativeFromRaw(g.fee, g.chain).toFixed(),
    }));
}
