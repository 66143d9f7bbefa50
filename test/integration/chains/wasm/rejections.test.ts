/**
 * Every way a command fails, as the adapter reports it: refused before signing (encoding, or the
 * simulation's contract error: nothing signed, nothing spent), refused by the node (never applied), failed
 * after inclusion (fee and sequence number spent), and rejected by matching inside a successful transaction
 * (`OrderRejected` with the specification's reason).
 */
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../../src/core/errors.ts';
import { fromRejectionReason } from '../../../../src/core/venue-errors.ts';
import type { ChainEvent, Command } from '../../../../src/chains/types.ts';
import { setPhase } from '../../../../src/sandbox/wasm/operator.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import {
  accepted,
  adapterFor,
  approveAhead,
  cancelCommand,
  channels,
  freshBook,
  PAIR,
  placeCommand,
  rejected,
  fileHarness,
  wallet,
  type Harness,
  type WalletOptions,
} from '../../../support/chains/wasm/harness.ts';

const h = fileHarness();

interface RefusalCase {
  readonly name: string;
  readonly wallet?: WalletOptions;
  readonly command: (h: Harness) => Command;
  readonly code: ErrorCode;
  readonly before?: (h: Harness) => void;
  readonly after?: (h: Harness) => void;
}

const refusals: RefusalCase[] = [
  {
    name: 'a wallet without buy permission (#4)',
    wallet: { canBuy: false },
    command: (h) => placeCommand(h, 'buy', '1', '12.00'),
    code: 'E_VENUE_NOT_ALLOWED_TO_BUY',
  },
  {
    name: 'a wallet without sell permission (#5)',
    wallet: { canSell: false },
    command: (h) => placeCommand(h, 'sell', '1', '13.00'),
    code: 'E_VENUE_NOT_ALLOWED_TO_SELL',
  },
  {
    name: 'a wallet not in the registry (#6)',
    wallet: { registered: false },
    command: (h) => placeCommand(h, 'buy', '1', '12.00'),
    code: 'E_VENUE_CLIENT_NOT_FOUND',
  },
  {
    name: 'a cancel of an order that does not rest (#8)',
    command: (h) => cancelCommand(h, 'buy', 987_654n),
    code: 'E_VENUE_ORDER_NOT_FOUND',
  },
  {
    name: 'a quote balance below value plus commission (#10)',
    wallet: { quote: 1000n },
    command: (h) => placeCommand(h, 'buy', '1', '12.00'),
    code: 'E_VENUE_INSUFFICIENT_BALANCE',
  },
  {
    name: 'a price off the tick grid (#1024)',
    command: (h) => placeCommand(h, 'buy', '1', '12.01'),
    code: 'E_VENUE_OFF_TICK',
  },
  {
    name: 'a price above the collar (#1018)',
    command: (h) => placeCommand(h, 'sell', '1', '19.00'),
    code: 'E_VENUE_PRICE_ABOVE_MAX_RANGE',
  },
  {
    name: 'an order value below the minimum (#1022)',
    command: (h) => placeCommand(h, 'buy', '0.005', '12.00'),
    code: 'E_VENUE_VALUE_BELOW_MIN_RANGE',
  },
  {
    name: 'a closed order book (#1001)',
    command: (h) => placeCommand(h, 'buy', '1', '12.00'),
    code: 'E_VENUE_MARKET_CLOSED',
    before: (h) => setPhase(h.emu, h.venue, h.d, 'closed'),
    after: (h) => setPhase(h.emu, h.venue, h.d, 'open'),
  },
];

describe('refused by simulation: nothing is signed or spent', () => {
  for (const c of refusals) {
    it(`${c.name} -> ${c.code}`, async () => {
      const trader = wallet(h, c.wallet ?? {});
      const built = adapterFor(h, trader, { channelKeys: channels(h, 1) });
      await approveAhead(built.adapter, h.pair);
      const sequences = built.adapter.sources.map((s) => h.emu.world.accounts.get(s)?.seqNum);
      c.before?.(h);
      const sub = await built.adapter.submit(c.command(h));
      c.after?.(h);
      const o = await rejected(sub);
      expect([sub.txHash, o.txHash, o.included, o.error.code]).toEqual([null, null, false, c.code]);
      expect(built.adapter.sources.map((s) => h.emu.world.accounts.get(s)?.seqNum)).toEqual(sequences);
      expect(built.store.transactions.open('wasm')).toEqual([]);
      expect(await metricValue(built.metrics, 'dltmm_wasm_submissions_total', { outcome: 'refused' })).toBe(1);
      await built.adapter.close();
    });
  }

  it('an order the core cannot encode for chain B is refused before any RPC call', async () => {
    const { adapter } = adapterFor(h, wallet(h));
    const cmd = placeCommand(h, 'buy', '1', '12.00', { condition: 'ioc' });
    const o = await rejected(
      await adapter.submit({ ...cmd, terms: { ...cmd.terms, validity: 'gtd', lifetimeDays: 5 } }),
    );
    expect([o.txHash, o.included, o.error.code]).toEqual([null, false, 'E_ENCODING_COMBINATION']);
    await adapter.close();
  });
});

describe('refused by the node or failed after inclusion', () => {
  it('a channel that cannot pay the fee: the node refuses it (txINSUFFICIENT_BALANCE) and it never applied', async () => {
    const trader = wallet(h);
    const rich = adapterFor(h, trader);
    await approveAhead(rich.adapter, h.pair);
    // Same store: the approval's recorded expiry is known to the second adapter.
    const poor = adapterFor(h, trader, { store: rich.store, channelKeys: channels(h, 1, 50n) });
    const sub = await poor.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    const o = await rejected(sub);
    expect([o.txHash, o.included, o.error.code, o.error.details.result]).toEqual([
      sub.txHash,
      false,
      'E_CHAIN_TX_REFUSED',
      'txINSUFFICIENT_BALANCE',
    ]);
    expect(sub.txHash).not.toBeNull();
    expect(rich.store.transactions.get(sub.txHash as string)?.status).toBe('dropped');
    await Promise.all([rich.adapter.close(), poor.adapter.close()]);
  });

  it('a transaction that fails on chain is rejected and included: fee and sequence number spent, the contract code kept', async () => {
    const trader = wallet(h);
    const [channel] = channels(h, 1);
    const built = adapterFor(h, trader, { channelKeys: [channel!] });
    await approveAhead(built.adapter, h.pair);
    h.sleeper.hold();
    const sub = await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    // Between simulation and inclusion the book closes.
    setPhase(h.emu, h.venue, h.d, 'closed');
    h.sleeper.open();
    const o = await rejected(sub);
    setPhase(h.emu, h.venue, h.d, 'open');
    expect([o.txHash, o.included, o.error.code, o.error.details.wasmCode]).toEqual([
      sub.txHash,
      true,
      'E_VENUE_MARKET_CLOSED',
      1001,
    ]);
    const record = built.store.transactions.get(sub.txHash as string);
    expect(record?.status).toBe('failed');
    expect(h.emu.world.accounts.get(channel!.publicKey())?.seqNum).toBe(record?.sequence);
    await built.adapter.close();
  });
});

function rejection(events: readonly ChainEvent[]): { reason: number; quantity: bigint; code: ErrorCode | null } {
  const e = events.find((x) => x.type === 'OrderRejected');
  if (e?.type !== 'OrderRejected') throw new Error('no OrderRejected event');
  return { reason: e.reason, quantity: e.quantityNotExecuted, code: fromRejectionReason(e.reason)?.code ?? null };
}

describe('rejected by matching: the transaction succeeds and OrderRejected says why', () => {
  it('IOC against an empty book: FullyRejected (8) for the whole quantity', async () => {
    const { pair, d } = freshBook(h, 'ioc-empty');
    const { adapter } = adapterFor(h, wallet(h, {}, d));
    const o = await accepted(await adapter.submit(placeCommand(h, 'buy', '1', '12.00', { pair, condition: 'ioc' })));
    expect(o.orderId).not.toBeNull();
    expect(rejection(o.events)).toEqual({ reason: 8, quantity: 1000n, code: 'E_REJECTED_FULL' });
    await adapter.close();
  });

  it('IOC partly filled: the remainder is PartialRejected (7)', async () => {
    const { pair, d } = freshBook(h, 'ioc-partial');
    const maker = adapterFor(h, wallet(h, {}, d));
    const taker = adapterFor(h, wallet(h, {}, d));
    await accepted(await maker.adapter.submit(placeCommand(h, 'sell', '1', '12.34', { pair })));
    const o = await accepted(
      await taker.adapter.submit(placeCommand(h, 'buy', '3', '12.34', { pair, condition: 'ioc' })),
    );
    expect(o.events.map((e) => e.type)).toEqual(['OrderReceived', 'Trade', 'OrderRejected']);
    expect(rejection(o.events)).toEqual({ reason: 7, quantity: 2000n, code: 'E_REJECTED_PARTIAL' });
    await Promise.all([maker.adapter.close(), taker.adapter.close()]);
  });

  it('against an own resting order with the same cross identifier: SelfTrade (1)', async () => {
    const { pair, d } = freshBook(h, 'self-trade');
    const { adapter } = adapterFor(h, wallet(h, {}, d));
    await accepted(await adapter.submit(placeCommand(h, 'sell', '1', '12.34', { pair, clientOrderId: 77n })));
    const o = await accepted(await adapter.submit(placeCommand(h, 'buy', '1', '12.34', { pair, clientOrderId: 77n })));
    expect(rejection(o.events)).toEqual({ reason: 1, quantity: 1000n, code: 'E_REJECTED_SELF_TRADE' });
    await adapter.close();
  });

  it('more crossing orders than maximumMatches: MaxMatches (2) for the remainder', async () => {
    const { pair, d } = freshBook(h, 'max-matches', { pair: { ...PAIR, maximumMatches: 1 } });
    const maker = adapterFor(h, wallet(h, {}, d));
    const taker = adapterFor(h, wallet(h, {}, d));
    for (const price of ['12.34', '12.36'])
      await accepted(await maker.adapter.submit(placeCommand(h, 'sell', '1', price, { pair })));
    const o = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '2', '12.36', { pair })));
    expect(rejection(o.events)).toEqual({ reason: 2, quantity: 1000n, code: 'E_REJECTED_MAX_MATCHES' });
    await Promise.all([maker.adapter.close(), taker.adapter.close()]);
  });

  it('an execution price beyond the dynamic threshold: a circuit-breaker reason (5)', async () => {
    const { pair, d } = freshBook(h, 'volatility');
    const maker = adapterFor(h, wallet(h, {}, d));
    const taker = adapterFor(h, wallet(h, {}, d));
    await accepted(await maker.adapter.submit(placeCommand(h, 'sell', '1', '14.00', { pair })));
    const o = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '1', '14.00', { pair })));
    expect(rejection(o.events)).toEqual({ reason: 5, quantity: 1000n, code: 'E_REJECTED_CIRCUIT_BREAKER' });
    await Promise.all([maker.adapter.close(), taker.adapter.close()]);
  });
});
