/** Small durable records: event cursors, approvals with their expiries, counters and decisions. */
import { transaction, type Db } from './database.ts';
import { toJson } from './json.ts';

export interface ApprovalRecord {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly token: string;
  readonly spender: string;
  readonly amount: bigint;
  readonly expiresAtLedger: number | null;
  readonly txHash: string | null;
  readonly updatedMs: number;
}

export interface Decision {
  readonly pairId: string;
  readonly strategy: string;
  readonly configHash: string;
  readonly params: unknown;
  readonly market: unknown;
  readonly risk: unknown;
}

/**
 * A decision's JSON columns, per decision: a round's placements are all recorded with the round's decision,
 * and its parameters (the strategy's configuration, the largest part) are the same object round after round.
 * Both are immutable, so their text is made once; the parameters' text is kept with the configuration's hash.
 */
const decisionColumns = new WeakMap<Decision, { params: string; market: string; risk: string }>();
const paramsColumn = new WeakMap<object, { hash: string; json: string }>();

function paramsJson(d: Decision): string {
  if (typeof d.params !== 'object' || d.params === null) return toJson(d.params);
  const known = paramsColumn.get(d.params);
  if (known !== undefined && known.hash === d.configHash) return known.json;
  const json = toJson(d.params);
  paramsColumn.set(d.params, { hash: d.configHash, json });
  return json;
}

function columnsOf(d: Decision): { params: string; market: string; risk: string } {
  let columns = decisionColumns.get(d);
  if (columns === undefined) {
    columns = { params: paramsJson(d), market: toJson(d.market), risk: toJson(d.risk) };
    decisionColumns.set(d, columns);
  }
  return columns;
}

export class StateStore {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  cursor(chain: 'evm' | 'wasm', wallet: string): unknown {
    const row = this.#db
      .prepare('SELECT cursor_json FROM cursors WHERE chain = ? AND wallet = ?')
      .get(chain, wallet) as { cursor_json: string } | undefined;
    return row === undefined ? null : (JSON.parse(row.cursor_json) as unknown);
  }

  setCursor(chain: 'evm' | 'wasm', wallet: string, cursor: unknown): void {
    this.#db
      .prepare(
        `INSERT INTO cursors (chain, wallet, cursor_json, updated_ms) VALUES (?, ?, ?, ?)
         ON CONFLICT (chain, wallet) DO UPDATE SET cursor_json = excluded.cursor_json, updated_ms = excluded.updated_ms`,
      )
      .run(chain, wallet, toJson(cursor), this.#now());
  }

  approval(chain: 'evm' | 'wasm', wallet: string, token: string, spender: string): ApprovalRecord | undefined {
    const r = this.#db
      .prepare('SELECT * FROM approvals WHERE chain = ? AND wallet = ? AND token = ? AND spender = ?')
      .get(chain, wallet, token, spender) as Record<string, string | number | null> | undefined;
    if (r === undefined) return undefined;
    return {
      chain,
      wallet,
      token,
      spender,
      amount: BigInt(r.amount as string),
      expiresAtLedger: r.expires_at_ledger === null ? null : Number(r.expires_at_ledger),
      txHash: r.tx_hash === null ? null : String(r.tx_hash),
      updatedMs: Number(r.updated_ms),
    };
  }

  setApproval(a: Omit<ApprovalRecord, 'updatedMs'>): void {
    this.#db
      .prepare(
        `INSERT INTO approvals (chain, wallet, token, spender, amount, expires_at_ledger, tx_hash, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (chain, wallet, token, spender) DO UPDATE SET amount = excluded.amount,
           expires_at_ledger = excluded.expires_at_ledger, tx_hash = excluded.tx_hash, updated_ms = excluded.updated_ms`,
      )
      .run(a.chain, a.wallet, a.token, a.spender, a.amount.toString(), a.expiresAtLedger, a.txHash, this.#now());
  }

  /**
   * Hands out the next value of a named counter in [first, last]; the value is durable before it is returned,
   * so it is never handed out twice, even across crashes. Throws when the range is used up.
   */
  nextCounter(name: string, first: number, last: number): number {
    return transaction(this.#db, () => {
      const row = this.#db.prepare('SELECT next FROM counters WHERE name = ?').get(name) as
        { next: number } | undefined;
      const value = row === undefined ? first : row.next;
      if (value > last) throw new Error(`counter ${name} is exhausted (${first}..${last})`);
      this.#db
        .prepare(
          'INSERT INTO counters (name, next) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next = excluded.next',
        )
        .run(name, value + 1);
      return value;
    });
  }

  /** Whether the counter has ever handed out a number or been raised (false on a fresh state file). */
  hasCounter(name: string): boolean {
    return this.#db.prepare('SELECT 1 FROM counters WHERE name = ?').get(name) !== undefined;
  }

  /**
   * Makes sure a counter will never hand out `value` or anything below it: used when an order of ours is found
   * on the venue that the store did not know (its number may have been handed out by a lost state file).
   */
  raiseCounter(name: string, value: number): void {
    this.#db
      .prepare(
        'INSERT INTO counters (name, next) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next = MAX(next, excluded.next)',
      )
      .run(name, value + 1);
  }

  /** A decision and the reporting values (owner, decision identifiers: the algorithm identifier) its orders carry. */
  recordDecision(d: Decision, reporting: { readonly a: number; readonly b: number } | null = null): number {
    const columns = columnsOf(d);
    const r = this.#db
      .prepare(
        'INSERT INTO decisions (created_ms, pair_id, strategy, config_hash, params_json, market_json, risk_json, owner_reporting_id, decision_reporting_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        this.#now(),
        d.pairId,
        d.strategy,
        d.configHash,
        columns.params,
        columns.market,
        columns.risk,
        reporting?.a ?? null,
        reporting?.b ?? null,
      );
    return Number(r.lastInsertRowid);
  }

  decision(id: number): (Decision & { createdMs: number }) | undefined {
    const r = this.#db.prepare('SELECT * FROM decisions WHERE id = ?').get(id) as
      Record<string, string | number> | undefined;
    if (r === undefined) return undefined;
    return {
      pairId: String(r.pair_id),
      strategy: String(r.strategy),
      configHash: String(r.config_hash),
      params: JSON.parse(String(r.params_json)) as unknown,
      market: JSON.parse(String(r.market_json)) as unknown,
      risk: JSON.parse(String(r.risk_json)) as unknown,
      createdMs: Number(r.created_ms),
    };
  }
}
