import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../../../src/chains/types.ts';
import { venueLocalToInstant } from '../../../../src/core/calendar.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { Recorder } from '../../../../src/engine/recording/recorder.ts';
import { recordingPath } from '../../../../src/store/recording-file.ts';
import { RECORDING_VERSION } from '../../../../src/store/recording-format.ts';
import { TestClock } from '../../../support/clock.ts';

const d = (v: string) => new Decimal(v);
const DAY = '2026-03-02';
const at = (hh: number, mm: number) => venueLocalToInstant(DAY, hh * 60 + mm);

let dir: string;
let logs: Array<{ msg: string; level: number }>;
const logger = () => pino({ level: 'debug' }, { write: (l: string) => void logs.push(JSON.parse(l)) });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-recording-'));
  logs = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function rows(day: string, sql: string): Array<Record<string, unknown>> {
  const db = new DatabaseSync(recordingPath(dir, day), { readOnly: true });
  try {
    return db.prepare(sql).all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

const resting = (height: bigint, orderId: bigint): ChainEvent => ({
  type: 'OrderResting',
  key: `0xt${height}:0`,
  pairId: 'p1',
  txHash: `0xt${height}`,
  height,
  blockHash: `0xb${height}`,
  timeMs: at(9, 0),
  orderId,
  client: '0xother',
  side: 'sell',
  quantity: 500n,
  price: 100_100n,
});

describe('the recorder', () => {
  it('writes what it is handed, in order, into the day file every flush, with the pairs and the format', () => {
    const clock = new TestClock(at(9, 0));
    const counts: string[] = [];
    const r = new Recorder({
      dir,
      maxBytes: 1 << 30,
      flushMs: 500,
      clock,
      logger: logger(),
      count: (table, outcome, n) => counts.push(`${table} ${outcome} ${n}`),
    });
    r.addPair({
      pairId: 'p1',
      symbol: 'BOND26EURe',
      chain: 'evm',
      wallet: '0xaa',
      binding: { scale: 100n },
      state: { prefunded: true, makerBps: 5, marketMaker: true },
      balances: { base: 10n, quote: 20n },
    });
    r.book({
      symbol: 'BOND26EURe',
      source: 'ws',
      receivedAt: at(9, 0),
      buy: [{ limit: d('99.9'), quantity: d('10') }],
      sell: [{ limit: d('100.1'), quantity: d('5.5') }],
    });
    r.chainEvents('evm', [resting(7n, 3n)], at(9, 0) + 1);
    r.fairReading('p1', at(9, 0) + 2, {
      kind: 'feed',
      value: d('100.02'),
      atMs: at(9, 0) - 400,
      maxAgeMs: 3000,
      error: null,
    });
    r.action({
      atMs: at(9, 0) + 3,
      pairId: 'p1',
      stage: 'sent',
      type: 'place',
      clientOrderId: 9n,
      side: 'buy',
      price: d('99.95'),
      quantity: d('1'),
      level: 0,
      txHash: '0xabc',
    });
    r.tradeInfo('p1', { lastPrice: d('100'), volume: 12n }, at(9, 0) + 4);
    expect(r.path).toBeNull();
    clock.advance(500);
    expect(r.path).toBe(recordingPath(dir, DAY));
    expect(rows(DAY, 'SELECT key, value FROM meta ORDER BY key')).toEqual([
      { key: 'created_ms', value: String(at(9, 0) + 500) },
      { key: 'day', value: DAY },
      { key: 'format', value: 'dlt-mm-recording' },
      { key: 'version', value: String(RECORDING_VERSION) },
    ]);
    expect(rows(DAY, 'SELECT * FROM pairs')).toEqual([
      {
        pair_id: 'p1',
        symbol: 'BOND26EURe',
        chain: 'evm',
        wallet: '0xaa',
        binding_json: '{"scale":"100"}',
        state_json: '{"prefunded":true,"makerBps":5,"marketMaker":true}',
        balances_json: '{"base":"10","quote":"20"}',
      },
    ]);
    expect(rows(DAY, 'SELECT seq, buy_json, sell_json FROM books')).toEqual([
      { seq: 1, buy_json: '[["99.9","10"]]', sell_json: '[["100.1","5.5"]]' },
    ]);
    expect(
      rows(DAY, 'SELECT seq, height, block_time_ms, type, order_id, side, price, quantity FROM chain_events'),
    ).toEqual([
      {
        seq: 1,
        height: '7',
        block_time_ms: at(9, 0),
        type: 'OrderResting',
        order_id: '3',
        side: 'sell',
        price: '100100',
        quantity: '500',
      },
    ]);
    expect(rows(DAY, 'SELECT source, value, value_time_ms, max_age_ms, error FROM fair_inputs')).toEqual([
      { source: 'feed', value: '100.02', value_time_ms: at(9, 0) - 400, max_age_ms: 3000, error: null },
    ]);
    expect(rows(DAY, 'SELECT stage, type, client_order_id, price, level, tx_hash FROM actions')).toEqual([
      { stage: 'sent', type: 'place', client_order_id: '9', price: '99.95', level: 0, tx_hash: '0xabc' },
    ]);
    expect(rows(DAY, 'SELECT status_json FROM trade_info')).toEqual([
      { status_json: '{"lastPrice":"100","volume":"12"}' },
    ]);
    expect(counts.toSorted()).toEqual([
      'actions written 1',
      'books written 1',
      'chain_events written 1',
      'fair_inputs written 1',
      'trade_info written 1',
    ]);
    r.close();
  });

  it('starts a new file at the first row of a new trading day (Europe/Berlin), the pairs written again', () => {
    const clock = new TestClock(at(23, 59));
    const r = new Recorder({ dir, maxBytes: 1 << 30, flushMs: 500, clock, logger: logger() });
    r.addPair({ pairId: 'p1', symbol: 'S', chain: 'wasm', wallet: 'G', binding: {} });
    r.tradeInfo('p1', { n: 1 }, at(23, 59));
    r.tradeInfo('p1', { n: 2 }, at(24, 0) + 1);
    r.close();
    expect(rows(DAY, 'SELECT status_json FROM trade_info')).toEqual([{ status_json: '{"n":1}' }]);
    expect(rows('2026-03-03', 'SELECT status_json FROM trade_info')).toEqual([{ status_json: '{"n":2}' }]);
    expect(rows('2026-03-03', 'SELECT pair_id FROM pairs')).toEqual([{ pair_id: 'p1' }]);
  });

  it('refuses rows once the day file reaches its maximum size: counted, logged once', () => {
    const clock = new TestClock(at(9, 0));
    const refused: number[] = [];
    const r = new Recorder({
      dir,
      maxBytes: 64 * 1024,
      flushMs: 100,
      clock,
      logger: logger(),
      count: (_t, outcome, n) => (outcome === 'refused' ? refused.push(n) : undefined),
    });
    const big = { blob: 'x'.repeat(8_000) };
    for (let i = 0; i < 40; i++) {
      r.tradeInfo('p1', big, clock.now());
      clock.advance(100);
    }
    r.close();
    const written = rows(DAY, 'SELECT COUNT(*) AS n FROM trade_info')[0]!.n as number;
    expect(written).toBeGreaterThan(0);
    expect(written + refused.reduce((a, b) => a + b, 0)).toBe(40);
    expect(logs.filter((l) => l.msg.startsWith('recording file reached its maximum size'))).toHaveLength(1);
  });

  it('logs and counts a file it cannot write, and goes on without throwing', () => {
    const clock = new TestClock(at(9, 0));
    const errors: number[] = [];
    const r = new Recorder({
      dir: join(dir, 'missing', '\u0000bad'),
      maxBytes: 1 << 30,
      flushMs: 100,
      clock,
      logger: logger(),
      count: (_t, outcome, n) => (outcome === 'error' ? errors.push(n) : undefined),
    });
    r.tradeInfo('p1', {}, clock.now());
    expect(() => clock.advance(100)).not.toThrow();
    r.close();
    expect(errors).toEqual([1]);
    expect(logs.some((l) => l.msg === 'recording could not be written' && l.level === 50)).toBe(true);
  });
});
