import { describe, expect, it } from 'vitest';
import type { PairBinding } from '../../../../src/chains/types.ts';
import { EventBindings } from '../../../../src/chains/wasm/event-decoder.ts';
import { createWasmMetrics } from '../../../../src/chains/wasm/metrics.ts';
import { awaitOutcome, type OutcomeContext } from '../../../../src/chains/wasm/outcome.ts';
import { WasmRpc } from '../../../../src/chains/wasm/rpc-client.ts';
import { createLogger } from '../../../../src/telemetry/logger.ts';
import { Metrics } from '../../../../src/telemetry/metrics.ts';
import { TestClock } from '../../../support/clock.ts';

const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

/** A node that has not found the transaction; its latest ledger is what the test says. */
function node() {
  const state = { ledger: 10, asked: 0 };
  const transport = async (method: string) => {
    if (method === 'getTransaction') state.asked += 1;
    return { status: 'NOT_FOUND', latestLedger: state.ledger, latestLedgerCloseTime: '0' };
  };
  return { state, transport };
}

function following() {
  const clock = new TestClock();
  const n = node();
  const rpc = new WasmRpc(n.transport, createWasmMetrics(new Metrics()), clock.now);
  const closing = new AbortController();
  const ctx: OutcomeContext = {
    rpc,
    journal: { recordSigned: () => undefined, mark: () => undefined, get: () => undefined },
    metrics: createWasmMetrics(new Metrics()),
    logger: createLogger({ level: 'silent' }),
    clock,
    sleep: clock.sleep,
    pollIntervalMs: 1_000,
    ledgerCloseMs: 5_000,
    graceMs: 0,
    signal: closing.signal,
  };
  const pair = { pairId: 'p', chain: 'wasm' } as PairBinding;
  const outcome = awaitOutcome(
    ctx,
    {
      hash: 'ab'.repeat(32),
      envelope: 'AAAA',
      maxTime: 0n,
      pair,
      bindings: new EventBindings('GWALLET', []),
      kind: 'place',
      orderId: null,
      context: {},
    },
    true,
  );
  return { clock, rpc, node: n.state, closing, outcome };
}

async function seconds(clock: TestClock, n: number) {
  for (let i = 0; i < n; i++) {
    clock.advance(1_000);
    await flush();
  }
}

describe('following a chain B transaction to its outcome', () => {
  it('asks getTransaction again only once a later ledger is seen, however short the poll interval', async () => {
    const f = following();
    await flush();
    expect(f.node.asked).toBe(1);
    // No later ledger: four poll intervals pass without a request.
    await seconds(f.clock, 4);
    expect(f.node.asked).toBe(1);
    // Another reply (the event follower's) names ledger 11: the next interval asks.
    f.node.ledger = 11;
    await f.rpc.call('getEvents', {});
    await seconds(f.clock, 1);
    expect(f.node.asked).toBe(2);
    await seconds(f.clock, 1);
    expect(f.node.asked).toBe(2);
    f.closing.abort();
    await seconds(f.clock, 1);
    expect(await f.outcome).toMatchObject({ kind: 'unknown' });
  });

  it('asks again after a ledger’s time when nothing else reports a later ledger', async () => {
    const f = following();
    await flush();
    await seconds(f.clock, 4);
    expect(f.node.asked).toBe(1);
    await seconds(f.clock, 1);
    expect(f.node.asked).toBe(2);
    await seconds(f.clock, 5);
    expect(f.node.asked).toBe(3);
    f.closing.abort();
    await seconds(f.clock, 1);
    await f.outcome;
  });
});
