/**
 * A call marked `withdrawable` is not sent once its caller's signal fires before its batch leaves (a cancel found
 * moot while its simulation waited for the sending batch): it is rejected with `CallWithdrawn`, and the other
 * calls of the batch leave as they would have.
 */
import { describe, expect, it } from 'vitest';
import { CallWithdrawn, gatheringTransport, withdrawable, type BatchCall } from '../../../src/chains/json-rpc-batch.ts';

describe('withdrawable calls of a gathering transport', () => {
  it('are not sent once withdrawn before the batch leaves; the others are', async () => {
    const sent: BatchCall[][] = [];
    const alone: string[] = [];
    const transport = gatheringTransport<object>(
      async (calls) => {
        sent.push([...calls]);
        return calls.map((c) => ({ ok: true as const, result: c.method }));
      },
      async (method) => {
        alone.push(method);
        return method;
      },
      'immediate',
    );
    const moot = new AbortController();
    const kept = new AbortController();
    const a = transport('simulateTransaction', withdrawable({ n: 1 }, moot.signal));
    const b = transport('simulateTransaction', withdrawable({ n: 2 }, kept.signal));
    const c = transport('getTransaction', { n: 3 });
    moot.abort();
    await expect(a).rejects.toBeInstanceOf(CallWithdrawn);
    expect([await b, await c]).toEqual(['simulateTransaction', 'getTransaction']);
    expect(sent.map((batch) => batch.map((x) => x.params))).toEqual([[{ n: 2 }, { n: 3 }]]);
    expect(alone).toEqual([]);
  });

  it('sends nothing when every call of the batch was withdrawn', async () => {
    let requests = 0;
    const transport = gatheringTransport<object>(
      async (calls) => {
        requests += 1;
        return calls.map(() => ({ ok: true as const, result: null }));
      },
      async () => {
        requests += 1;
        return null;
      },
      'immediate',
    );
    const moot = new AbortController();
    const a = transport('simulateTransaction', withdrawable({ n: 1 }, moot.signal));
    moot.abort();
    await expect(a).rejects.toBeInstanceOf(CallWithdrawn);
    expect(requests).toBe(0);
  });
});
