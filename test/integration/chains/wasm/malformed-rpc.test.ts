/**
 * RPC replies that do not match what the adapter reads, injected between it and the emulator: each is
 * counted, logged and worked around (asked again, or the command refused before signing), never a crash,
 * and no secret seed reaches a log line or an error.
 */
import { describe, expect, it } from 'vitest';
import { httpTransport, type RpcTransport } from '../../../../src/chains/wasm/json-rpc.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import {
  accepted,
  adapterFor,
  approveAhead,
  channels,
  placeCommand,
  rejected,
  fileHarness,
  wallet,
} from '../../../support/chains/wasm/harness.ts';

const h = fileHarness();

type Tamper = (method: string, reply: Record<string, unknown>) => unknown;

/** The real transport, with the reply of a method changed by `tamper` at most `times` times once armed. */
function tampering(
  tamper: Tamper,
  times = Number.POSITIVE_INFINITY,
): { transport: RpcTransport; armed: { on: boolean; hits: number } } {
  const base = httpTransport(h.rpc.url, { timeoutMs: 5000 });
  const armed = { on: false, hits: 0 };
  return {
    armed,
    transport: async (method, params) => {
      const reply = await base(method, params);
      if (!armed.on || armed.hits >= times) return reply;
      const changed = tamper(method, reply as Record<string, unknown>);
      if (changed !== reply) armed.hits++;
      return changed;
    },
  };
}

const spoilMeta: Tamper = (method, reply) =>
  method === 'getTransaction' && reply.status === 'SUCCESS'
    ? { ...reply, resultMetaXdr: 'bm90IHhkcg==', events: undefined }
    : reply;

describe('malformed replies', () => {
  it('a transaction reply whose meta does not decode is counted and asked again; the order id still comes through', async () => {
    const t = tampering(spoilMeta, 2);
    const built = adapterFor(h, wallet(h), { transport: t.transport });
    await approveAhead(built.adapter, h.pair);
    t.armed.on = true;
    const o = await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    expect(t.armed.hits).toBe(2);
    expect(o.orderId).toBe(h.d.book.book.buys.at(-1)?.id);
    expect(await metricValue(built.metrics, 'dltmm_wasm_malformed_total', { source: 'transaction' })).toBe(2);
    expect(built.logs.some((l) => l.includes('transaction meta does not decode'))).toBe(true);
    await built.adapter.close();
  });

  it('a getTransaction reply of the wrong shape is counted by method and asked again', async () => {
    const t = tampering((method, reply) => (method === 'getTransaction' ? { ...reply, status: 'MAYBE' } : reply), 1);
    const built = adapterFor(h, wallet(h), { transport: t.transport });
    await approveAhead(built.adapter, h.pair);
    t.armed.on = true;
    await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    expect(t.armed.hits).toBe(1);
    expect(
      await metricValue(built.metrics, 'dltmm_wasm_rpc_errors_total', { method: 'getTransaction', kind: 'malformed' }),
    ).toBe(1);
    await built.adapter.close();
  });

  it('a simulation reply without results refuses the command before anything is signed', async () => {
    const t = tampering((method, reply) => (method === 'simulateTransaction' ? { ...reply, results: [] } : reply));
    const built = adapterFor(h, wallet(h), { transport: t.transport });
    await approveAhead(built.adapter, h.pair);
    t.armed.on = true;
    const sub = await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    const o = await rejected(sub);
    expect([sub.txHash, o.included, o.error.code, o.error.details.kind]).toEqual([
      null,
      false,
      'E_CHAIN_RPC',
      'malformed',
    ]);
    expect(built.store.transactions.open('wasm')).toEqual([]);
    await built.adapter.close();
  });

  it('an unreadable answer to sendTransaction counts as sent: the poller resends the same bytes and finds it included', async () => {
    const t = tampering((method, reply) => (method === 'sendTransaction' ? { ...reply, status: 42 } : reply), 1);
    const built = adapterFor(h, wallet(h), { transport: t.transport, channelKeys: channels(h, 1) });
    await approveAhead(built.adapter, h.pair);
    t.armed.on = true;
    const sub = await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    const o = await accepted(sub);
    expect(o.txHash).toBe(sub.txHash);
    expect(
      await metricValue(built.metrics, 'dltmm_wasm_rpc_errors_total', { method: 'sendTransaction', kind: 'malformed' }),
    ).toBe(1);
    await built.adapter.close();
  });
});

describe('secrets', () => {
  it('no seed of the trading or channel accounts appears in any log line', async () => {
    const trader = wallet(h);
    const chans = channels(h, 2);
    const built = adapterFor(h, trader, { channelKeys: chans });
    await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    const refused = await rejected(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.01')));
    await built.adapter.close();
    const text = built.logs.join('') + JSON.stringify(refused.error.toJSON());
    expect(built.logs.length).toBeGreaterThan(3);
    for (const kp of [trader, ...chans]) expect(text.includes(kp.secret())).toBe(false);
  });
});
