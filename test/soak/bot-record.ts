/**
 * What the bot knew, read after the run: its state file (read-only: every order with its transitions and their
 * times) and its JSON log (chain A refusals at simulation, which leave no trace anywhere else, and the count of
 * warnings and errors by message). Used only to decide what the bot already knew when it sent something, never
 * as the truth of what happened on a chain.
 */
import { readFileSync } from 'node:fs';
import { openStoreReadOnly } from '../../src/store/store.ts';
import type { Call, Chain } from './model.ts';

export interface BotOrder {
  readonly chain: Chain;
  readonly clientOrderId: string;
  readonly pairId: string;
  readonly orderId: string | null;
  readonly status: string;
  readonly createdMs: number;
  /** Whether its placement left the bot (a placement superseded while queued is withdrawn unsigned). */
  readonly sent: boolean;
  /** First transition to filled, cancelled or rejected. */
  readonly goneMs: number | null;
}

export interface BotRefusal {
  readonly chain: Chain;
  readonly atMs: number;
  readonly call: Call;
  readonly pairId: string | null;
  readonly orderId: string | null;
  readonly code: string;
  readonly name: string;
}

export interface BotRecord {
  readonly orders: readonly BotOrder[];
  /** By chain, pair and venue order id. */
  readonly byOrderId: ReadonlyMap<string, BotOrder>;
  /** By chain and client order id (the cross identifier on the chain). */
  readonly byClientId: ReadonlyMap<string, BotOrder>;
  readonly refusals: readonly BotRefusal[];
  /** Warning and error lines by level and message. */
  readonly problems: ReadonlyMap<string, number>;
}

const GONE = new Set(['filled', 'cancelled', 'rejected']);

export function readBotRecord(storePath: string, logPath: string): BotRecord {
  const store = openStoreReadOnly(storePath);
  const orders: BotOrder[] = [];
  try {
    const rows = store.db
      .prepare('SELECT wallet, client_order_id, chain, pair_id, order_id, status, created_ms, tx_hash FROM orders')
      .all() as Array<{
      wallet: string;
      client_order_id: string;
      chain: Chain;
      pair_id: string;
      order_id: string | null;
      status: string;
      created_ms: number;
      tx_hash: string | null;
    }>;
    const gone = new Map<string, number>();
    for (const t of store.db
      .prepare('SELECT wallet, client_order_id, at_ms, to_status FROM order_transitions ORDER BY id')
      .all() as Array<{ wallet: string; client_order_id: string; at_ms: number; to_status: string }>) {
      const k = `${t.wallet}|${t.client_order_id}`;
      if (GONE.has(t.to_status) && !gone.has(k)) gone.set(k, Number(t.at_ms));
    }
    for (const r of rows) {
      orders.push({
        chain: r.chain,
        clientOrderId: r.client_order_id,
        pairId: r.pair_id,
        orderId: r.order_id,
        status: r.status,
        createdMs: Number(r.created_ms),
        sent: r.tx_hash !== null,
        goneMs: gone.get(`${r.wallet}|${r.client_order_id}`) ?? null,
      });
    }
  } finally {
    store.close();
  }
  const { refusals, problems } = readLog(logPath);
  return {
    orders,
    byOrderId: new Map(orders.filter((o) => o.orderId !== null).map((o) => [`${o.chain}|${o.pairId}|${o.orderId}`, o])),
    byClientId: new Map(orders.map((o) => [`${o.chain}|${o.clientOrderId}`, o])),
    refusals,
    problems,
  };
}

/** The bot's lines for a chain A command its simulation refused (a race the bot recognises is an info line). */
const EVM_REFUSED = /^chain A (place|cancel|approve) (?:refused before signing|not sent)/;

export function readLog(path: string): { refusals: BotRefusal[]; problems: Map<string, number> } {
  return parseLog(readFileSync(path, 'utf8'));
}

/** Chain A refusals at simulation (a verdict of the chain: a venue or rejection code) and the problem lines. */
export function parseLog(text: string): { refusals: BotRefusal[]; problems: Map<string, number> } {
  const refusals: BotRefusal[] = [];
  const problems = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const msg = String(r.msg ?? '');
    if (r.level === 'warn' || r.level === 'error' || r.level === 'fatal') {
      // Messages carrying a variable part after a colon are grouped by what comes before it.
      const k = `${String(r.level)}: ${msg.replace(/: .*$/, ': ...')}`;
      problems.set(k, (problems.get(k) ?? 0) + 1);
    }
    const m = EVM_REFUSED.exec(msg);
    if (m === null) continue;
    // The error is logged either as its own fields (code, reason) or as a serialised error (err).
    const err = (r.err ?? {}) as { code?: unknown; message?: unknown; details?: { name?: unknown } };
    const code = typeof r.code === 'string' ? r.code : typeof err.code === 'string' ? err.code : '';
    if (!code.startsWith('E_VENUE_') && !code.startsWith('E_REJECTED_')) continue;
    refusals.push({
      chain: 'evm',
      atMs: Date.parse(String(r.time)),
      call: m[1] as Call,
      pairId: typeof r.pairId === 'string' ? r.pairId : null,
      orderId: typeof r.orderId === 'string' ? r.orderId : null,
      code,
      name: typeof err.details?.name === 'string' ? err.details.name : String(r.reason ?? err.message ?? code),
    });
  }
  return { refusals, problems };
}
