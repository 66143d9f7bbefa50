import { describe, expect, it } from 'vitest';
import type { OrderCounts } from './analysis.ts';
import type { Incident } from './model.ts';
import { render, rows, verdict, type SoakResult } from './report.ts';

const counts: OrderCounts = {
  placed: 10,
  rested: 10,
  cancelledByUs: 8,
  filledInFull: 1,
  filledInPart: 1,
  rejectedAtMatching: 0,
  cancelledByContract: 0,
  tradedOnArrival: 1,
};

const raceCancel: Incident = {
  chain: 'evm',
  stage: 'inclusion',
  call: 'cancel',
  pairId: 'a',
  code: 'E_VENUE_ORDER_NOT_FOUND',
  name: 'OrderBook_OrderNotFound',
  txHash: '0x1234567890abcdef',
  orderId: '23',
  atMs: 1_000,
  height: 50,
  facts: { removal: { height: 50, how: 'filled', nextPublishedMs: 3_000 } },
};
const allowance = (n: number): Incident => ({
  chain: 'wasm',
  stage: 'inclusion',
  call: 'place',
  pairId: 'b',
  code: 'E_VENUE_INSUFFICIENT_ALLOWANCE',
  name: '#9 AllowanceError',
  txHash: `abcdef${n}0000`,
  orderId: null,
  atMs: 2_000 + n,
  height: 1000 + n,
  facts: {},
});

function result(o: Partial<SoakResult> = {}): SoakResult {
  return {
    minutes: 10,
    pairs: [
      { chain: 'evm', pairId: 'a', symbol: 'AAA' },
      { chain: 'wasm', pairId: 'b', symbol: 'BBB' },
    ],
    counts: { evm: counts, wasm: counts },
    txs: [],
    incidents: [raceCancel],
    unusedApprovals: [],
    secondCancels: [],
    presence: [{ chain: 'evm', pairId: 'a', side: 'buy', share: 0.987 }],
    responses: [{ chain: 'evm', answered: 4, inNext: 3, late: [2] }],
    rss: { first: 200 * 2 ** 20, last: 210 * 2 ** 20, max: 220 * 2 ** 20 },
    lagP99s: [0.01, 0.03, 0.02],
    checks: [
      { sample: 1, chain: 'evm', gauge: 'dltmm_orders_live', subject: '0xw', value: '12', truth: '12', equal: true },
    ],
    samples: [
      {
        sample: 1,
        atMs: 5_000,
        reached: true,
        note: 'block 60, ledger 1010',
        venueList: { evm: { venue: 12, chain: 12 } },
      },
    ],
    shutdown: { code: 0, signal: null, seconds: 4.2, leftResting: 0 },
    botProblems: [['warn: chain A cancel reverted: ...', 3]],
    ...o,
  };
}

describe('verdict', () => {
  it('passes a run whose only rejections are venue races', () => {
    expect(verdict(result())).toEqual({ ok: true, failures: [] });
  });

  it('fails on self-caused rejections, second cancels, gauges that differ, a failed shutdown and orders left behind', () => {
    const v = verdict(
      result({
        incidents: [raceCancel, allowance(1), allowance(2)],
        secondCancels: [
          { chain: 'evm', pairId: 'a', orderId: '23', txHash: null, atMs: 5, reachedChain: false, first: '0x1' },
        ],
        checks: [
          {
            sample: 1,
            chain: 'evm',
            gauge: 'dltmm_orders_live',
            subject: '0xw',
            value: '0',
            truth: '12',
            equal: false,
          },
        ],
        samples: [
          { sample: 1, atMs: 5_000, reached: true, note: '', venueList: {} },
          { sample: 2, atMs: 6_000, reached: false, note: 'moved', venueList: {} },
        ],
        shutdown: { code: 1, signal: null, seconds: 60, leftResting: 3 },
      }),
    );
    expect(v).toEqual({
      ok: false,
      failures: [
        '2 self-caused rejection(s)',
        '1 second cancel(s)',
        '1 gauge reading(s) differ from the truth',
        '1 state sample(s) without a consistent reading',
        'the bot exited with 1',
        '3 order(s) left on the books after the shutdown',
      ],
    });
  });
});

describe('rows and render', () => {
  it('groups rejections by chain, stage, call, reason and rule, self-caused first, with the evidence', () => {
    const r = rows(result({ incidents: [raceCancel, allowance(1), allowance(2)] })).filter(
      (x) => x.area === 'rejections',
    );
    expect(r).toEqual([
      {
        area: 'rejections',
        chain: 'chain B',
        what: 'place reverted: #9 AllowanceError — allowance short: our allowance view was wrong',
        value: '2',
        class: 'self-caused',
        evidence: 'abcdef10 @1001; abcdef20 @1002',
      },
      {
        area: 'rejections',
        chain: 'chain A',
        what: "cancel reverted: OrderBook_OrderNotFound — cancel met the order's removal (filled) in the same block or ledger",
        value: '1',
        class: 'venue race',
        evidence: 'order 23 0x12345678 @50',
      },
    ]);
  });

  it('reports presence, latency, memory, event-loop delay, gauges and the verdict', () => {
    const r = rows(result());
    const find = (area: string, what: string) => r.find((x) => x.area === area && x.what.startsWith(what))?.value;
    expect(find('orders', 'traded on arrival as taker')).toBe('1');
    expect(find('presence', 'AAA buy')).toBe('98.7%');
    expect(find('latency', 'book changes whose new quotes were all in the next block')).toBe('3 of 4 (75.0%)');
    expect(find('bot', 'RSS at ready')).toBe('200 MiB / 210 MiB / 220 MiB');
    expect(find('bot', 'RSS last / first')).toBe('1.05');
    expect(find('bot', 'event-loop delay')).toBe('20.0 ms / 30.0 ms');
    expect(find('gauges #1', 'state gauges equal to the truth')).toBe('1 of 1');
    expect(find('bot log', 'warn: chain A cancel reverted')).toBe('3');
    expect(r.at(-1)).toMatchObject({ area: 'verdict', what: 'PASS' });
  });

  it('renders one aligned Markdown table, escaping pipes', () => {
    const text = render([
      { area: 'a', chain: '', what: 'x | y', value: '1', class: '', evidence: '' },
      { area: 'bb', chain: 'chain A', what: 'z', value: '22', class: 'self-caused', evidence: 'e' },
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('| area | chain   | what   | value | class       | evidence |');
    expect(lines[1]).toBe('|------|---------|--------|-------|-------------|----------|');
    expect(lines[2]).toBe('| a    |         | x \\| y | 1     |             |          |');
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });
});
