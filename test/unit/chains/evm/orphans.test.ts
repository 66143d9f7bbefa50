/**
 * Chain A nonces after a reorganisation dropped mined transactions: the watcher takes a dropped placement or
 * cancellation back with a self-transfer (an approval is sent again as it was), nonces below the highest mined
 * count seen stay taken, and settling an earlier transaction never answers with a later command's receipt at a
 * reused nonce. Scripted node, real journal.
 */
import { describe, expect, it } from 'vitest';
import { FeeOracle } from '../../../../src/chains/evm/fee-oracle.ts';
import { resolveOptions } from '../../../../src/chains/evm/options.ts';
import type { MinedCommand } from '../../../../src/chains/evm/receipt-outcome.ts';
import type { Receipt } from '../../../../src/chains/evm/rpc-client.ts';
import { settleTransaction } from '../../../../src/chains/evm/settle.ts';
import { decodeSigned, TxSigner } from '../../../../src/chains/evm/tx-signer.ts';
import { TxWatcher } from '../../../../src/chains/evm/tx-watcher.ts';
import type { Outcome } from '../../../../src/chains/types.ts';
import { openStore } from '../../../../src/store/store.ts';
import type { TxRecord } from '../../../../src/store/tx-journal.ts';
import { silentLogger } from '../../../../src/telemetry/logger.ts';
import { hex, scripted } from '../../../support/chains/evm/scripted-rpc.ts';

const signer = new TxSigner(`0x${'42'.repeat(32)}`, 80002n);
const book = '0x5174c2b8Cb5Aaed0303ce69793Dc3f1Ee00de8df';
const GWEI = 1_000_000_000n;
const options = resolveOptions({ rpcUrl: '', chainId: 1n, privateKey: '', journal: null as never });

/** A node whose mined count, pending count and receipts the test sets; every raw transaction sent is kept. */
function node() {
  const state = { latest: 0n, pending: 0n, receipts: new Map<string, Receipt>(), sent: [] as string[] };
  const s = scripted({
    eth_getTransactionCount: (p) => hex(p[1] === 'latest' ? state.latest : state.pending),
    eth_getTransactionReceipt: (p) => {
      const r = state.receipts.get(String(p[0]));
      return r === undefined
        ? null
        : {
            transactionHash: r.txHash,
            blockNumber: hex(r.blockNumber),
            blockHash: r.blockHash,
            status: hex(BigInt(r.status)),
            gasUsed: '0x5208',
            logs: [],
          };
    },
    eth_sendRawTransaction: (p) => {
      state.sent.push(String(p[0]));
      return decodeSigned(String(p[0])).hash;
    },
    eth_feeHistory: () => ({ oldestBlock: '0x1', baseFeePerGas: ['0x1', hex(GWEI)], gasUsedRatio: [0.5] }),
    eth_maxPriorityFeePerGas: () => hex(GWEI),
  });
  return { state, s };
}

function rig() {
  const store = openStore(':memory:', () => 0);
  const n = node();
  const outcomes: Array<{ receipt: string; command: string }> = [];
  const outcomeOf = async (receipt: Receipt, kind: string): Promise<Outcome> => {
    outcomes.push({ receipt: receipt.txHash, command: kind });
    return {
      kind: 'accepted',
      txHash: receipt.txHash,
      height: receipt.blockNumber,
      orderId: null,
      events: [],
      block: { height: receipt.blockNumber, hash: receipt.blockHash },
    };
  };
  const watcher = new TxWatcher({
    rpc: n.s.client,
    signer,
    fees: new FeeOracle(n.s.client, options.fees, { now: () => 0 }, silentLogger()),
    journal: store.transactions,
    clock: { now: () => 0 },
    sleep: () => new Promise(() => {}),
    options: options.receipts,
    metrics: n.s.evm,
    logger: silentLogger(),
    outcomeOf: (receipt, slot, mined) =>
      outcomeOf(receipt, mined.role === 'cancel' ? 'self-transfer' : slot.command.kind),
  });
  /** Journals a transaction of ours at a nonce with a status, as the lane and the watcher would have. */
  const journal = (nonce: bigint, kind: TxRecord['kind'], status: TxRecord['status'], data = '0x1234'): string => {
    const payload =
      kind === 'noop'
        ? { to: signer.address, data: '0x', value: 0n, gasLimit: 21_000n }
        : { to: book, data, value: 0n, gasLimit: 100_000n };
    const fee = kind === 'noop' ? 3n * GWEI : 2n * GWEI;
    const signed = signer.sign(payload, nonce, { maxFeePerGas: fee, maxPriorityFeePerGas: GWEI });
    store.transactions.recordSigned({
      txHash: signed.hash,
      chain: 'evm',
      wallet: signer.address,
      source: signer.address,
      sequence: nonce,
      kind,
      clientOrderId: kind === 'place' ? 7n : null,
      raw: signed.raw,
    });
    store.transactions.mark(signed.hash, status);
    return signed.hash;
  };
  const receipt = (txHash: string, blockNumber: bigint) =>
    n.state.receipts.set(txHash, {
      txHash,
      blockNumber,
      blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
      status: 1,
      gasUsed: 21_000n,
      logs: [],
    });
  const settle = (txHash: string) =>
    settleTransaction(txHash, {
      rpc: n.s.client,
      journal: store.transactions,
      watcher,
      wallet: signer.address,
      outcomeOf: (r: Receipt, command: MinedCommand) =>
        outcomeOf(r, command.cancelledBySelfTransfer ? 'self-transfer' : command.kind),
      deadlineMs: 1,
    });
  return { store, watcher, state: n.state, outcomes, journal, receipt, settle };
}

/** Lets the settle call run until the watcher follows `n` nonces (scripted answers need no time, only turns). */
async function following(r: ReturnType<typeof rig>, n: number): Promise<void> {
  for (let i = 0; i < 20 && r.watcher.size < n; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(r.watcher.size).toBe(n);
}

const sentKinds = (r: ReturnType<typeof rig>) =>
  r.state.sent.map((raw) =>
    decodeSigned(raw).payload.to.toLowerCase() === signer.address.toLowerCase() ? 'self-transfer' : 'original',
  );

describe('a nonce handed out again to a later command', () => {
  it('never gives the earlier transaction the later command’s receipt: the earlier one was superseded', async () => {
    const r = rig();
    const dropped = r.journal(4n, 'place', 'included');
    const later = r.journal(4n, 'cancel', 'included', '0xabcd');
    r.receipt(later, 9n);
    r.state.latest = 5n;
    r.state.pending = 5n;
    const o = await r.settle(dropped);
    expect(o).toMatchObject({
      kind: 'rejected',
      included: false,
      error: { code: 'E_CHAIN_TX_EXPIRED', details: { reason: 'superseded' } },
    });
    expect(r.outcomes).toEqual([]);
    expect(await r.settle(later)).toMatchObject({ kind: 'accepted', txHash: later });
  });
});

describe('a mined transaction that a reorganisation dropped', () => {
  it('settle takes its nonce back: the placement is answered as never applied once the self-transfer is mined', async () => {
    const r = rig();
    const approve = r.journal(0n, 'approve', 'included', '0x095e');
    const place = r.journal(1n, 'place', 'included');
    // Both were mined once; the chain that replaced their blocks has neither.
    r.state.latest = 0n;
    r.state.pending = 0n;
    const answer = r.settle(place);
    await following(r, 2);
    expect(r.watcher.inFlightNonces().toSorted()).toEqual([0n, 1n]);
    expect(r.watcher.takenNonces()).toContain(1n);
    expect(r.store.transactions.get(place)?.status).toBe('sent');
    await r.watcher.poll();
    // In nonce order: the approval as it was, then a self-transfer in place of the placement.
    expect(sentKinds(r)).toEqual(['original', 'self-transfer']);
    expect(decodeSigned(r.state.sent[0] as string).hash).toBe(approve);
    const noop = decodeSigned(r.state.sent[1] as string);
    expect(noop.nonce).toBe(1n);
    r.receipt(approve, 20n);
    r.receipt(noop.hash, 20n);
    r.state.latest = 2n;
    r.state.pending = 2n;
    await r.watcher.poll();
    expect(await answer).toMatchObject({ kind: 'accepted', txHash: noop.hash });
    expect(r.outcomes.map((o) => o.command)).toEqual(expect.arrayContaining(['approve', 'self-transfer']));
    expect(r.store.transactions.atSequence('evm', signer.address, 1n).map((t) => `${t.kind}:${t.status}`)).toEqual([
      'place:replaced',
      'noop:included',
    ]);
    expect(r.watcher.size).toBe(0);
  });

  it('a nonce a self-transfer had already taken is taken again by the same self-transfer, not a new one', async () => {
    const r = rig();
    r.journal(0n, 'place', 'replaced');
    const noop = r.journal(0n, 'noop', 'included');
    const answer = r.settle(noop);
    await following(r, 1);
    await r.watcher.poll();
    expect(r.state.sent.map((raw) => decodeSigned(raw).hash)).toEqual([noop]);
    r.receipt(noop, 30n);
    r.state.latest = 1n;
    await r.watcher.poll();
    expect(await answer).toMatchObject({ txHash: noop });
    expect(r.outcomes.map((o) => o.command)).toEqual(['self-transfer']);
  });

  it('the poll finds it when the mined count falls below the highest it saw, and leaves a nonce whose receipt is still served', async () => {
    const r = rig();
    const pending = r.journal(3n, 'cancel', 'sent');
    r.watcher.track(
      decodeSigned(r.store.transactions.get(pending)?.raw as string),
      { kind: 'cancel', clientOrderId: null, context: {}, restored: false },
      false,
    );
    const a = r.journal(1n, 'cancel', 'included');
    const b = r.journal(2n, 'place', 'included');
    r.state.latest = 3n;
    r.state.pending = 4n;
    await r.watcher.poll();
    expect(r.state.sent).toEqual([]);
    // A reorganisation: nonce 1's transaction is gone, nonce 2's is still served by the node.
    r.receipt(b, 12n);
    r.state.latest = 1n;
    r.state.pending = 1n;
    await r.watcher.poll();
    expect(r.watcher.inFlightNonces().toSorted()).toEqual([1n, 3n]);
    expect(sentKinds(r)).toEqual(['self-transfer']);
    expect(decodeSigned(r.state.sent[0] as string).nonce).toBe(1n);
    expect(r.store.transactions.get(a)?.status).toBe('sent');
    expect(r.store.transactions.get(b)?.status).toBe('included');
  });
});
