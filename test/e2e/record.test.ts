/**
 * `dlt-mm record` against the sandbox with its simulated traders: without a wallet key used or a state file,
 * it records the books the venue serves, the trade information, the fair-value readings and every client's
 * order book events on both chains; the chain events are exactly those the nodes hold for the books over the
 * recorded range (read here with plain JSON-RPC, not the bot's code), in chain order.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { LIFECYCLE_TOPICS } from '../../src/chains/evm/abi.ts';
import { main } from '../../src/cli/main.ts';
import { SECOND_BLOCKS, sandboxSession } from '../support/e2e/session.ts';

const FAIR_LADDER = fileURLToPath(new URL('../../strategies/fair-ladder.yaml', import.meta.url));
const SECONDS = 8;

const session = sandboxSession(
  'record-e2e',
  { ...SECOND_BLOCKS, flow: { enabled: true, takerIntervalMs: 1_000 } },
  { keep: 'never' },
);
let out = '';
let code: number;
let file: string;

async function rpc(url: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

function rows(sql: string): Array<Record<string, unknown>> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const { config } = await session.writeConfig('rec', {
    store: join(session.dir, 'unused.sqlite'),
    strategy: FAIR_LADDER,
    risk: {},
  });
  const doc = parseDocument(readFileSync(config, 'utf8'));
  doc.set('record', doc.createNode({ dir: join(session.dir, 'rec'), flushMs: 100 }));
  writeFileSync(config, doc.toString());
  code = await main(['record', '--config', config, '--for', String(SECONDS)], {
    stdout: (t) => (out += t),
    stderr: () => undefined,
    readFile: (p) => readFileSync(p, 'utf8'),
    writeFile: (p, t) => writeFileSync(p, t),
    env: {},
    cwd: session.dir,
  });
  const files = readdirSync(join(session.dir, 'rec')).filter((f) => f.endsWith('.rec.sqlite'));
  file = join(session.dir, 'rec', files[0] ?? 'missing');
}, 120_000);

describe('dlt-mm record', () => {
  it('records every pair: books, trade information, fair-value readings, without a state file', () => {
    expect(code).toBe(0);
    expect(out).toContain(`recorded into ${file}`);
    expect(readdirSync(session.dir)).not.toContain('unused.sqlite');
    const ids = session.sandbox.manifest.pairs.map((p) => p.id).toSorted();
    expect(rows('SELECT pair_id FROM pairs ORDER BY pair_id').map((r) => r.pair_id)).toEqual(ids);
    const symbols = new Set(rows('SELECT DISTINCT symbol FROM books').map((r) => r.symbol));
    expect([...symbols].toSorted()).toEqual(session.sandbox.manifest.pairs.map((p) => p.symbol).toSorted());
    expect(new Set(rows('SELECT DISTINCT pair_id FROM trade_info').map((r) => r.pair_id)).size).toBe(ids.length);
    const sources = rows('SELECT DISTINCT pair_id, source FROM fair_inputs');
    for (const id of ids) expect(sources.filter((s) => s.pair_id === id).length).toBeGreaterThan(0);
  });

  it("records chain A's book events of every client exactly as the node holds them, in block and log order", async () => {
    const books = rows("SELECT binding_json FROM pairs WHERE chain = 'evm'").map(
      (r) => (JSON.parse(String(r.binding_json)) as { orderBook: string }).orderBook,
    );
    const recorded = rows("SELECT height, event_key, client FROM chain_events WHERE chain = 'evm' ORDER BY seq");
    expect(recorded.length).toBeGreaterThan(0);
    const heights = recorded.map((r) => Number(r.height));
    const logs = (await rpc(session.sandbox.manifest.chains.evm.rpcUrl, 'eth_getLogs', [
      {
        fromBlock: `0x${Math.min(...heights).toString(16)}`,
        toBlock: `0x${Math.max(...heights).toString(16)}`,
        address: books,
        topics: [LIFECYCLE_TOPICS],
      },
    ])) as Array<{ transactionHash: string; logIndex: string; blockNumber: string }>;
    const chainOrder = logs
      .toSorted((a, b) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex))
      .map((l) => `${l.transactionHash}:${Number(l.logIndex)}`);
    expect(recorded.map((r) => r.event_key)).toEqual(chainOrder);
    const ours = session.sandbox.manifest.wallets.filter((w) => w.marketMaker).map((w) => w.address.toLowerCase());
    expect(recorded.some((r) => !ours.includes(String(r.client).toLowerCase()))).toBe(true);
  });

  it("records chain B's book events of every client exactly as the node holds them, in ledger and event order", async () => {
    const books = rows("SELECT binding_json FROM pairs WHERE chain = 'wasm'").map(
      (r) => (JSON.parse(String(r.binding_json)) as { orderBook: string }).orderBook,
    );
    const recorded = rows("SELECT height, event_key FROM chain_events WHERE chain = 'wasm' ORDER BY seq");
    expect(recorded.length).toBeGreaterThan(0);
    const heights = recorded.map((r) => Number(r.height));
    const ids: string[] = [];
    let page = (await rpc(session.sandbox.manifest.chains.wasm.rpcUrl, 'getEvents', {
      startLedger: Math.min(...heights),
      filters: [{ type: 'contract', contractIds: books }],
      pagination: { limit: 200 },
    })) as { events: Array<{ id: string; ledger: number }>; cursor: string };
    for (;;) {
      ids.push(...page.events.filter((e) => e.ledger <= Math.max(...heights)).map((e) => e.id));
      if (page.events.length < 200) break;
      page = (await rpc(session.sandbox.manifest.chains.wasm.rpcUrl, 'getEvents', {
        filters: [{ type: 'contract', contractIds: books }],
        pagination: { cursor: page.cursor, limit: 200 },
      })) as typeof page;
    }
    expect(recorded.map((r) => r.event_key)).toEqual(ids);
  });
  it('a recording made without trading backtests a strategy from the balances the command line gives', async () => {
    let said = '';
    let errors = '';
    const io = {
      stdout: (t: string) => void (said += t),
      stderr: (t: string) => void (errors += t),
      readFile: (p: string) => readFileSync(p, 'utf8'),
      writeFile: (p: string, t: string) => writeFileSync(p, t),
      env: {},
      cwd: session.dir,
    };
    const args = [
      'backtest',
      '--config',
      join(session.dir, 'rec.yaml'),
      '--data',
      file,
      '--out',
      join(session.dir, 'bt'),
    ];
    // Without balances there is nothing to trade with: refused, saying what to give.
    await expect(main(args, io)).resolves.toBe(2);
    expect(said).toBe('');
    expect(errors).toContain('give them with --balances <base>,<quote>');
    expect(await main([...args, '--balances', '100,100000'], io)).toBe(0);
    const db = new DatabaseSync(join(session.dir, 'bt', 'backtest-state.sqlite'), { readOnly: true });
    try {
      const quoted = db.prepare('SELECT DISTINCT pair_id FROM orders').all() as Array<{ pair_id: string }>;
      expect(quoted.map((r) => r.pair_id).toSorted()).toEqual(
        session.sandbox.manifest.pairs.map((p) => p.id).toSorted(),
      );
    } finally {
      db.close();
    }
    const report = JSON.parse(readFileSync(join(session.dir, 'bt', 'backtest.json'), 'utf8')) as {
      backtest: { replayed: Record<string, { orders: number }> };
    };
    expect(report.backtest.replayed.evm?.orders ?? 0).toBeGreaterThan(0);
  }, 60_000);
});
