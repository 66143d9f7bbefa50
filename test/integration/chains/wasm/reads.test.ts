/**
 * Reading the chain: the order book's own configuration and phase (pre-funded or not, scales, commissions),
 * the wallet's balances, and the trustline and authorization checks that stop trading with a clear error.
 */
import { Keypair } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { requestsDuring } from '../../../support/chains/json-rpc-requests.ts';
import { httpTransport } from '../../../../src/chains/wasm/json-rpc.ts';
import { mint, setAuthorized, setPhase, trust } from '../../../../src/sandbox/wasm/operator.ts';
import {
  accepted,
  adapterFor,
  cancelCommand,
  freshBook,
  PAIR,
  placeCommand,
  fileHarness,
  wallet,
} from '../../../support/chains/wasm/harness.ts';

const h = fileHarness();

describe('pair state', () => {
  it('reads get_config and the phase of a pre-funded book', async () => {
    const { adapter } = adapterFor(h, wallet(h));
    expect(await adapter.readPairState(h.pair)).toEqual({
      phase: 'OpenForTrading',
      open: true,
      scales: { baseInternal: 1000n, quoteInternal: 10_000n, baseNative: 10_000_000n, quoteNative: 10_000_000n },
      makerBps: PAIR.makerCommission,
      takerBps: PAIR.takerCommission,
      marketMakerBps: PAIR.marketMakerCommission,
      prefunded: true,
    });
    await adapter.close();
  });

  it('sees no_prefund_config of a book that matches without locking, and a closed phase', async () => {
    const { d, pair } = freshBook(h, 'no-prefund', { prefunded: false });
    const { adapter } = adapterFor(h, wallet(h, {}, d));
    setPhase(h.emu, h.venue, d, 'closed');
    h.ledger();
    expect(await adapter.readPairState(pair)).toMatchObject({
      prefunded: false,
      phase: 'ClosedForTrading',
      open: false,
    });
    await adapter.close();
  });
});

describe('balances', () => {
  it('reads base and quote in native units and the XLM for fees', async () => {
    const trader = wallet(h, { base: 123n, quote: 456n });
    const { adapter } = adapterFor(h, trader);
    expect(await adapter.readBalances(h.pair)).toEqual({
      base: 123n,
      quote: 456n,
      native: h.emu.world.accounts.get(trader.publicKey())?.balance,
    });
    await adapter.close();
  });

  it('reads base and quote as of one ledger and says which (only the latest state can be read)', async () => {
    const trader = wallet(h, { base: 123n, quote: 456n });
    const { adapter } = adapterFor(h, trader);
    h.ledger();
    expect(await adapter.readBalancesAt(h.pair, 1n)).toEqual({
      base: 123n,
      quote: 456n,
      native: h.emu.world.accounts.get(trader.publicKey())?.balance,
      height: BigInt(h.emu.latest.seq),
    });
    await adapter.close();
  });
});

describe('the books at once', () => {
  it('reads the configuration and phase of the books asked at the same moment in one JSON-RPC batch', async () => {
    const { d, pair } = freshBook(h, 'batched', { prefunded: false });
    const { adapter } = adapterFor(h, wallet(h, {}, d));
    const { result, requests } = await requestsDuring(() =>
      Promise.all([adapter.readPairState(h.pair), adapter.readPairState(pair)]),
    );
    const [a, b] = result;
    expect(requests).toEqual([
      ['simulateTransaction', 'simulateTransaction', 'simulateTransaction', 'simulateTransaction'],
    ]);
    expect([a.prefunded, b.prefunded]).toEqual([true, false]);
    await adapter.close();
  });
});

describe('the wallet at once', () => {
  it('reads every token (its trustline) and the XLM balance in one getLedgerEntries once each token is known', async () => {
    const trader = wallet(h, { base: 123n, quote: 456n });
    const methods: string[] = [];
    const http = httpTransport(h.rpc.url, { timeoutMs: 5_000 });
    const { adapter } = adapterFor(h, trader, {
      transport: (method, params) => {
        methods.push(method);
        return http(method, params);
      },
    });
    const tokens = [h.pair.baseToken, h.pair.quoteToken];
    const first = await adapter.readWalletBalances(tokens);
    expect(first).toEqual({
      tokens: new Map([
        [h.pair.baseToken, 123n],
        [h.pair.quoteToken, 456n],
      ]),
      failed: new Map(),
      native: h.emu.world.accounts.get(trader.publicKey())?.balance,
    });
    // Each token's name is asked once; from then on a read is one request.
    methods.length = 0;
    mint(h.emu, h.d, 'quote', trader.publicKey(), 4n);
    h.ledger();
    expect((await adapter.readWalletBalances(tokens)).tokens.get(h.pair.quoteToken)).toBe(460n);
    expect(methods).toEqual(['getLedgerEntries']);
    await adapter.close();
  });

  it('a token without a trustline fails alone (#13); the other and the XLM balance are read', async () => {
    const kp = Keypair.random();
    h.emu.fundAccount(kp.publicKey(), 100_000_000_000n);
    trust(h.emu, h.d, 'quote', kp.publicKey());
    h.ledger();
    const { adapter } = adapterFor(h, kp);
    const read = await adapter.readWalletBalances([h.pair.baseToken, h.pair.quoteToken]);
    expect([...read.tokens]).toEqual([[h.pair.quoteToken, 0n]]);
    expect(read.failed.get(h.pair.baseToken)).toMatchObject({ code: 'E_VENUE_TRUSTLINE_MISSING' });
    expect(read.native).toBe(100_000_000_000n);
    await adapter.close();
  });
});

describe('orders', () => {
  it('probes whether an order rests by simulating its cancellation, without sending anything', async () => {
    const trader = wallet(h, { approve: 10n ** 12n });
    const { adapter } = adapterFor(h, trader);
    const placed = await accepted(await adapter.submit(placeCommand(h, 'sell', '2', '15.00')));
    const sequence = h.emu.world.accounts.get(trader.publicKey())?.seqNum;
    expect(await adapter.probeOrder(h.pair, 'sell', placed.orderId as bigint)).toEqual({
      onBook: true,
      height: BigInt(h.emu.latest.seq),
    });
    expect(h.emu.world.accounts.get(trader.publicKey())?.seqNum).toBe(sequence);
    await accepted(await adapter.submit(cancelCommand(h, 'sell', placed.orderId as bigint)));
    expect(await adapter.probeOrder(h.pair, 'sell', placed.orderId as bigint)).toEqual({
      onBook: false,
      height: BigInt(h.emu.latest.seq),
    });
    await adapter.close();
  });
});

describe('ensureReady', () => {
  it('passes for a wallet with both trustlines authorized', async () => {
    const { adapter } = adapterFor(h, wallet(h));
    await expect(adapter.ensureReady(h.pair)).resolves.toBeUndefined();
    await adapter.close();
  });

  it('names the missing trustline (#13)', async () => {
    const kp = Keypair.random();
    h.emu.fundAccount(kp.publicKey(), 100_000_000_000n);
    trust(h.emu, h.d, 'quote', kp.publicKey());
    h.ledger();
    const { adapter } = adapterFor(h, kp);
    await expect(adapter.ensureReady(h.pair)).rejects.toMatchObject({
      code: 'E_VENUE_TRUSTLINE_MISSING',
      details: {
        tokenRole: 'base',
        contract: h.pair.baseToken,
        asset: `${h.d.base.config.code}:${h.d.base.config.issuer}`,
      },
    });
    await adapter.close();
  });

  it('names a trustline that is not authorized (#11)', async () => {
    const trader = wallet(h);
    mint(h.emu, h.d, 'quote', trader.publicKey(), 1n);
    setAuthorized(h.emu, h.d, 'quote', trader.publicKey(), false);
    h.ledger();
    const { adapter } = adapterFor(h, trader);
    await expect(adapter.ensureReady(h.pair)).rejects.toMatchObject({
      code: 'E_VENUE_TOKEN_NOT_AUTHORIZED',
      details: { tokenRole: 'quote' },
    });
    await adapter.close();
  });
});
