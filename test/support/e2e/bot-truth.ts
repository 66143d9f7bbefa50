/**
 * The crash test's own comparison of a `dlt-mm run` state file with the sandbox: what rests on the books
 * (read from the contracts), what every token balance of the bot's wallets is, what its resting orders lock
 * by the venue's rules, which client order ids reached a book (from the chains' events), and what the venue's
 * open-order lists say. Nothing here uses the bot's code; the state file is read with plain SQL.
 */
import { DatabaseSync } from 'node:sqlite';
import { contractAt, sandboxProvider } from '../../../src/sandbox/evm/chain.ts';
import { baseNative, lockFor } from '../../../src/sandbox/matching/amounts.ts';
import type { BookParams } from '../../../src/sandbox/matching/types.ts';
import type { Sandbox } from '../../../src/sandbox/venue/sandbox.ts';
import type { Chain, RestingOrder, SandboxChains } from './sandbox-chains.ts';

export interface StoreOrder {
  readonly wallet: string;
  readonly clientOrderId: bigint;
  readonly pairId: string;
  readonly orderId: bigint | null;
  readonly status: string;
  readonly remaining: bigint;
}

export interface StoreSnapshot {
  readonly orders: StoreOrder[];
  /** Inventory totals (free plus locked) by wallet and token (lower case). */
  readonly inventory: Map<string, bigint>;
  readonly openAlerts: Array<{ wallet: string; kind: string; message: string }>;
}

/** Statuses of an order that is or may be on a book. */
export const LIVE = new Set(['resting', 'partiallyFilled', 'cancelRequested']);

export const key = (wallet: string, token: string) => `${wallet.toLowerCase()}:${token.toLowerCase()}`;

export function readStore(path: string): StoreSnapshot {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const orders = db
      .prepare('SELECT wallet, client_order_id, pair_id, order_id, status, quantity, filled FROM orders')
      .all()
      .map((r) => {
        const x = r as Record<string, string | null>;
        return {
          wallet: String(x.wallet),
          clientOrderId: BigInt(x.client_order_id as string),
          pairId: String(x.pair_id),
          orderId: x.order_id === null || x.order_id === undefined ? null : BigInt(x.order_id),
          status: String(x.status),
          remaining: BigInt(x.quantity as string) - BigInt(x.filled as string),
        };
      });
    const inventory = new Map(
      db
        .prepare('SELECT wallet, token, total FROM inventory')
        .all()
        .map((r) => {
          const x = r as { wallet: string; token: string; total: string };
          return [key(x.wallet, x.token), BigInt(x.total)] as const;
        }),
    );
    const openAlerts = db
      .prepare('SELECT wallet, kind, message FROM alerts WHERE resolved_ms IS NULL')
      .all()
      .map((r) => r as { wallet: string; kind: string; message: string });
    return { orders, inventory, openAlerts };
  } finally {
    db.close();
  }
}

interface PairInfo {
  readonly id: string;
  readonly chain: Chain;
  readonly wallet: string;
  readonly baseToken: string;
  readonly quoteToken: string;
  readonly params: BookParams;
}

/** The sandbox's pairs with what the comparison needs: the trading wallet, token addresses and book rules. */
export function pairsOf(sandbox: Sandbox, chains: SandboxChains): PairInfo[] {
  return sandbox.manifest.pairs.map((p) => {
    const chain = p.chain as Chain;
    const params =
      chain === 'evm'
        ? sandbox.deployed.evmPairs.get(p.id)?.params
        : sandbox.deployed.wasmBooks.get(p.id)?.book.book.params;
    if (params === undefined) throw new Error(`no book parameters for ${p.id}`);
    const token = (t: { hex: string; strkey?: string | null }) => (chain === 'evm' ? t.hex : (t.strkey as string));
    return {
      id: p.id,
      chain,
      wallet: chains.wallets[chain],
      baseToken: token(p.baseToken),
      quoteToken: token(p.quoteToken),
      params,
    };
  });
}

/** What each of the bot's resting orders holds in its book (market-maker wallets lock at the market-maker rate). */
export function lockedBy(pairs: readonly PairInfo[], resting: readonly RestingOrder[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const add = (k: string, v: bigint) => out.set(k, (out.get(k) ?? 0n) + v);
  for (const o of resting) {
    const p = pairs.find((x) => x.id === o.pairId);
    if (p === undefined || !p.params.prefunded) continue;
    if (o.side === 'sell') add(key(p.wallet, p.baseToken), baseNative(o.remaining, p.params.scales));
    else add(key(p.wallet, p.quoteToken), lockFor(o.price, o.remaining, p.params.marketMakerBps, p.params.scales));
  }
  return out;
}

/** Every token balance of the bot's wallets, read from the token contracts. */
export async function balancesOf(sandbox: Sandbox, pairs: readonly PairInfo[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  const provider = sandboxProvider(sandbox.evmNode.rpcUrl);
  try {
    for (const p of pairs) {
      for (const token of [p.baseToken, p.quoteToken]) {
        const k = key(p.wallet, token);
        if (out.has(k)) continue;
        if (p.chain === 'evm')
          out.set(k, (await contractAt('EMoneyToken', token, provider).getFunction('balanceOf')(p.wallet)) as bigint);
        else {
          const d = sandbox.deployed.wasmBooks.get(p.id);
          const contract = token === d?.addresses.base.strkey ? d.base : d?.quote;
          if (contract === undefined) throw new Error(`no token ${token}`);
          out.set(k, contract.balanceOf(p.wallet));
        }
      }
    }
  } finally {
    provider.destroy();
  }
  return out;
}
