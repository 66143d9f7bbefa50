import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../../src/chains/evm/options.ts';
import { TxSigner } from '../../../../src/chains/evm/tx-signer.ts';
import { TxWatcher, type WatcherDeps } from '../../../../src/chains/evm/tx-watcher.ts';
import type { TxRecord } from '../../../../src/store/tx-journal.ts';
import { silentLogger } from '../../../../src/telemetry/logger.ts';

const signer = new TxSigner(`0x${'42'.repeat(32)}`, 80002n);
const payload = { to: '0x5174c2b8Cb5Aaed0303ce69793Dc3f1Ee00de8df', data: '0x1234', value: 0n, gasLimit: 100_000n };
const self = { to: signer.address, data: '0x', value: 0n, gasLimit: 21_000n };

const sign = (nonce: bigint) => signer.sign(payload, nonce, { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n });
const command = (kind: 'approve' | 'place') => ({ kind, clientOrderId: null, context: {}, restored: false });

/** A watcher's dependencies: the signer, a clock at 0, the default receipt options, no metrics, and `rest`. */
function watcherDeps(rest: Record<string, unknown>): WatcherDeps {
  return {
    signer,
    clock: { now: () => 0 },
    options: resolveOptions({ rpcUrl: '', chainId: 1n, privateKey: '', journal: null as never }).receipts,
    metrics: null,
    logger: silentLogger(),
    ...rest,
  } as unknown as WatcherDeps;
}

function record(kind: TxRecord['kind'], p: typeof payload, maxFee: bigint): TxRecord {
  const s = signer.sign(p, 4n, { maxFeePerGas: maxFee, maxPriorityFeePerGas: 1n });
  return {
    txHash: s.hash,
    chain: 'evm',
    wallet: signer.address,
    source: signer.address,
    sequence: 4n,
    kind,
    clientOrderId: 9n,
    raw: s.raw,
    status: 'sent',
    replacedBy: null,
    createdMs: 5,
    updatedMs: 5,
  };
}

describe('taking nonces back from the journal', () => {
  it('rebuilds a nonce from records of one millisecond in any order: the command first, then replacements by fee', () => {
    const w = new TxWatcher(watcherDeps({}));
    const original = record('cancel', payload, 10n);
    const bump = record('replace', payload, 12n);
    const noop = record('noop', self, 14n);
    w.restore([noop, bump, original]);
    const slot = w.slotAt(4n);
    expect(slot?.command).toMatchObject({ kind: 'cancel', clientOrderId: 9n, restored: true });
    expect(slot?.attempts.map((a) => [a.role, a.signed.hash])).toEqual([
      ['original', original.txHash],
      ['bump', bump.txHash],
      ['cancel', noop.txHash],
    ]);
    expect(w.slotOf(bump.txHash.toUpperCase().replace('0X', '0x'))).toBe(slot);
    expect(w.inFlightNonces()).toEqual([4n]);
  });
});

describe('settling nonces mined in one block', () => {
  it('settles them in nonce order even when a later nonce’s outcome is read first', async () => {
    const marks: string[] = [];
    const settled: string[] = [];
    const firstRead = Promise.withResolvers<void>();
    const deps = watcherDeps({
      journal: { mark: (hash: string, status: string) => marks.push(`${hash}:${status}`) },
      rpc: {
        transactionCount: () => Promise.resolve(2n),
        receipt: (hash: string) => Promise.resolve({ txHash: hash, status: 1, logs: [], gasUsed: 1n }),
      },
      // Nonce 0's outcome takes longer to read (a block to fetch) than nonce 1's.
      outcomeOf: async (_r: unknown, slot: { nonce: bigint }) => {
        if (slot.nonce === 0n) await firstRead.promise;
        else firstRead.resolve();
        return { kind: 'accepted', txHash: `n${slot.nonce}`, events: [] };
      },
    });
    const w = new TxWatcher(deps);
    const a = sign(0n);
    const b = sign(1n);
    for (const [s, kind] of [
      [a, 'approve'],
      [b, 'place'],
    ] as const)
      void w.track(s, command(kind), false).outcome.then(() => settled.push(kind));
    await w.poll();
    await Promise.resolve();
    expect(marks).toEqual([`${a.hash}:included`, `${b.hash}:included`]);
    expect(settled).toEqual(['approve', 'place']);
  });
});
