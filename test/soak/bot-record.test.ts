import { describe, expect, it } from 'vitest';
import { parseLog } from './bot-record.ts';

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ level: 'info', time: '2026-01-05T10:00:00.000Z', name: 'dlt-mm', ...o });

describe('parseLog', () => {
  it('reads chain A refusals at simulation in both log shapes, and only verdicts of the chain', () => {
    const text = [
      line({
        level: 'warn',
        pairId: 'a',
        orderId: '22',
        kind: 'cancel',
        err: {
          type: 'DltError',
          code: 'E_VENUE_ORDER_NOT_FOUND',
          message: 'OrderBook_OrderNotFound',
          details: { name: 'OrderBook_OrderNotFound' },
        },
        msg: 'chain A cancel refused before signing: OrderBook_OrderNotFound',
      }),
      line({
        pairId: 'a',
        orderId: '23',
        kind: 'cancel',
        code: 'E_VENUE_ORDER_NOT_FOUND',
        reason: 'OrderBook_OrderNotFound',
        msg: 'chain A cancel not sent: the order is no longer on the book',
      }),
      line({
        level: 'warn',
        pairId: 'b',
        clientOrderId: '9',
        kind: 'place',
        code: 'E_VENUE_INSUFFICIENT_ALLOWANCE',
        reason: 'ERC20InsufficientAllowance(spender="0x1")',
        msg: 'chain A place refused before signing: ERC20InsufficientAllowance',
      }),
      // The bot's own refusal (a rule it checks itself) is no verdict of the chain.
      line({
        level: 'warn',
        pairId: 'b',
        kind: 'place',
        code: 'E_RULE_TICK',
        reason: 'off tick',
        msg: 'chain A place refused before signing: off tick',
      }),
      'not json',
      line({ level: 'error', msg: 'quote recomputation failed' }),
      line({ level: 'error', msg: 'quote recomputation failed' }),
    ].join('\n');
    const { refusals, problems } = parseLog(text);
    expect(refusals).toEqual([
      {
        chain: 'evm',
        atMs: Date.parse('2026-01-05T10:00:00.000Z'),
        call: 'cancel',
        pairId: 'a',
        orderId: '22',
        code: 'E_VENUE_ORDER_NOT_FOUND',
        name: 'OrderBook_OrderNotFound',
      },
      {
        chain: 'evm',
        atMs: Date.parse('2026-01-05T10:00:00.000Z'),
        call: 'cancel',
        pairId: 'a',
        orderId: '23',
        code: 'E_VENUE_ORDER_NOT_FOUND',
        name: 'OrderBook_OrderNotFound',
      },
      {
        chain: 'evm',
        atMs: Date.parse('2026-01-05T10:00:00.000Z'),
        call: 'place',
        pairId: 'b',
        orderId: null,
        code: 'E_VENUE_INSUFFICIENT_ALLOWANCE',
        name: 'ERC20InsufficientAllowance(spender="0x1")',
      },
    ]);
    expect([...problems]).toEqual([
      ['warn: chain A cancel refused before signing: ...', 1],
      ['warn: chain A place refused before signing: ...', 2],
      ['error: quote recomputation failed', 2],
    ]);
  });
});
