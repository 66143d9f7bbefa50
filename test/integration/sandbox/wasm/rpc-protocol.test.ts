/**
 * The RPC surface the SDK relies on: node information, ledgers with decodable header and meta XDR, ledger
 * entries (accounts, trustlines, contract balances, contract instances), fee stats, the friendbot, classic
 * account creation for channel accounts, and the real server's JSON-RPC errors for malformed requests.
 */
import { Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { account, hashOf, orderArgs, fileHarness, submit, wallet } from '../../../support/sandbox/wasm/harness.ts';

const h = fileHarness();

async function raw(body: string): Promise<{ error?: { code: number; message: string }; result?: unknown }> {
  const res = await fetch(h.rpcServer.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return (await res.json()) as { error?: { code: number; message: string } };
}

const call = (method: string, params: unknown) => raw(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }));

describe('node information', () => {
  it('answers getHealth, getNetwork, getVersionInfo and getFeeStats', async () => {
    expect(await h.server.getHealth()).toMatchObject({
      status: 'healthy',
      latestLedger: h.emu.latest.seq,
      ledgerRetentionWindow: 120_960,
    });
    expect(await h.server.getNetwork()).toMatchObject({
      passphrase: h.emu.passphrase,
      protocolVersion: 23,
      friendbotUrl: h.rpcServer.friendbotUrl,
    });
    expect((await h.server.getVersionInfo()).protocolVersion).toBe(23);
    expect((await h.server.getFeeStats()).sorobanInclusionFee.p50).toBe('100');
  });

  it('getLatestLedger carries a header and close meta the SDK decodes, chained to the previous ledger', async () => {
    const before = await h.server.getLatestLedger();
    h.emu.closeLedger();
    const after = await h.server.getLatestLedger();
    expect(after.sequence).toBe(before.sequence + 1);
    expect(after.headerXdr.ledgerSeq).toBe(after.sequence);
    expect(Buffer.from(after.headerXdr.previousLedgerHash.value).toString('hex')).toBe(before.id);
    expect(after.metadataXdr.type).toBe('v0');
    expect(after.closeTime).toBe(String(h.emu.latest.closeTime));
  });
});

describe('ledger entries', () => {
  it('serve trustline balances and the order book contract balance where the SDK looks for them', async () => {
    const kp = wallet(h, h.pair, { quote: 500_000_000n });
    const quote = new Asset(h.pair.quote.config.code, h.pair.quote.config.issuer);
    expect((await h.server.getAssetBalance(kp.publicKey(), quote)).balanceEntry?.amount).toBe('500000000');
    const args = orderArgs(kp.publicKey(), { quantity: 1000n, price: 123_400n });
    const lockedBefore = h.pair.quote.balanceOf(h.pair.book.address);
    expect((await submit(h, kp, h.pair.book.address, 'new_buy_order', args)).status).toBe('SUCCESS');
    const book = await h.server.getAssetBalance(h.pair.book.address, quote, h.emu.passphrase);
    expect(BigInt(book.balanceEntry?.amount ?? '0') - lockedBefore).toBe(123_585_100n);
    expect((await h.server.getAssetBalance(kp.publicKey(), quote)).balanceEntry?.amount).toBe(
      String(500_000_000n - 123_585_100n),
    );
  });

  it('serve contract instances and answer an absent entry with no entry', async () => {
    expect((await h.server.getContractInstance(h.pair.book.address)).executable.type).toBe('contractExecutableWasm');
    expect((await h.server.getContractInstance(h.pair.quote.address)).executable.type).toBe(
      'contractExecutableStellarAsset',
    );
    await expect(h.server.getAccount(Keypair.random().publicKey())).rejects.toThrow(/Account not found/);
  });
});

describe('accounts', () => {
  it('the friendbot creates and funds an account, as requestAirdrop expects', async () => {
    const kp = Keypair.random();
    const acct = await h.server.requestAirdrop(kp.publicKey(), h.rpcServer.friendbotUrl);
    expect(acct.sequenceNumber()).toBe((BigInt(h.emu.latest.seq) << 32n).toString());
    expect(h.emu.world.accounts.get(kp.publicKey())?.balance).toBe(100_000_000_000n);
    expect((await h.server.requestAirdrop(kp.publicKey(), h.rpcServer.friendbotUrl)).accountId()).toBe(kp.publicKey());
  });

  it('a funded account creates channel accounts with classic createAccount operations', async () => {
    const funder = account(h);
    const channels = [Keypair.random(), Keypair.random()];
    let builder = new TransactionBuilder(await h.server.getAccount(funder.publicKey()), {
      fee: '100',
      networkPassphrase: h.emu.passphrase,
    });
    for (const c of channels)
      builder = builder.addOperation(Operation.createAccount({ destination: c.publicKey(), startingBalance: '50' }));
    const tx = builder.setTimebounds(0, Number(h.emu.nowSeconds()) + 60).build();
    tx.sign(funder);
    expect((await h.server.sendTransaction(tx)).status).toBe('PENDING');
    h.emu.closeLedger();
    expect((await h.server.getTransaction(hashOf(tx))).status).toBe('SUCCESS');
    for (const c of channels) expect((await h.server.getAccount(c.publicKey())).accountId()).toBe(c.publicKey());
  });
});

describe("malformed requests get the server's JSON-RPC errors", () => {
  const cases: Array<[string, () => ReturnType<typeof raw>, number]> = [
    ['a body that is not JSON: parse error', () => raw('{"jsonrpc":'), -32700],
    [
      'a request without jsonrpc "2.0": invalid request',
      () => raw(JSON.stringify({ id: 1, method: 'getHealth' })),
      -32600,
    ],
    ['an unknown method', () => call('getTheMoon', null), -32601],
    [
      'sendTransaction with bytes that are not an envelope',
      () => call('sendTransaction', { transaction: 'AAAA' }),
      -32602,
    ],
    ['sendTransaction without params', () => call('sendTransaction', null), -32602],
    ['getTransaction with a short hash', () => call('getTransaction', { hash: 'abcd' }), -32602],
    ['getLedgerEntries with a key that is not a LedgerKey', () => call('getLedgerEntries', { keys: ['!!'] }), -32602],
    [
      'simulateTransaction with bytes that are not an envelope',
      () => call('simulateTransaction', { transaction: 'AAAA' }),
      -32602,
    ],
    [
      'getEvents with both a cursor and a start ledger',
      () => call('getEvents', { startLedger: 1000, pagination: { cursor: '0004294967296000000-0000000000' } }),
      -32602,
    ],
    [
      'getEvents with a limit above 10000',
      () => call('getEvents', { startLedger: 1000, pagination: { limit: 10_001 } }),
      -32602,
    ],
    [
      'getEvents with a ** segment before the end',
      () => call('getEvents', { startLedger: 1000, filters: [{ topics: [['**', '*']] }] }),
      -32602,
    ],
    [
      'getEvents with an invalid contract id',
      () => call('getEvents', { startLedger: 1000, filters: [{ contractIds: ['CNOTACONTRACT'] }] }),
      -32602,
    ],
  ];
  for (const [name, send, code] of cases) {
    it(`${name}`, async () => {
      expect((await send()).error?.code).toBe(code);
    });
  }

  it('answers a batch with one response per request', async () => {
    const res = (await raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', id: 2, method: 'nope' },
      ]),
    )) as unknown as Array<{ id: number; error?: unknown }>;
    expect(res.map((r) => [r.id, r.error === undefined])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it('keeps serving after malformed requests', async () => {
    expect((await h.server.getHealth()).status).toBe('healthy');
  });
});
