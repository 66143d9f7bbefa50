/**
 * The chain B emulator: (1) transactions per ledger that one source account gets included versus a pool of
 * 8 channel accounts (the network, and so the emulator, takes one pending transaction per source), with
 * submitters going through `@stellar/stellar-sdk` over RPC while ledgers close on a timer; (2) the emulator's
 * own capacity: transactions admitted and applied per second, and RPC simulations per second, so that it
 * never becomes the bottleneck of the bot's benchmarks.
 */
import {
  Account,
  Address,
  authorizeEntry,
  Contract,
  Keypair,
  nativeToScVal,
  rpc,
  TransactionBuilder,
  type xdr,
} from '@stellar/stellar-sdk';
import { encodeWasmCrossIdentifier, encodeWasmOrderData } from '../../src/core/encoding/wasm-order.ts';
import { DEFAULT_ORDER_OPTIONS, type Side } from '../../src/core/order-terms.ts';
import { parseTradingPair } from '../../src/core/pair.ts';
import { freePort } from '../../src/sandbox/net.ts';
import { deployPair, deployVenue, type BookDeployment, type Venue } from '../../src/sandbox/wasm/deploy.ts';
import { WasmEmulator } from '../../src/sandbox/wasm/emulator.ts';
import { setUpWallet } from '../../src/sandbox/wasm/operator.ts';
import { METHODS } from '../../src/sandbox/wasm/rpc-methods.ts';
import { startRpcServer } from '../../src/sandbox/wasm/rpc-server.ts';
import { fmt, type Row } from './harness.ts';
import pairJson from '../fixtures/pairs/wasm-pair.json' with { type: 'json' };

export const title = 'chain B emulator';

const PAIR = parseTradingPair(pairJson);
const BIG = 10n ** 15n;

function setUp(ledgerIntervalMs: number): { emu: WasmEmulator; venue: Venue; d: BookDeployment } {
  const emu = new WasmEmulator({ ledgerIntervalMs });
  const venue = deployVenue(emu, Keypair.random());
  const d = deployPair(emu, venue, { pair: PAIR, prefunded: true });
  return { emu, venue, d };
}

function trader(s: ReturnType<typeof setUp>): Keypair {
  const kp = Keypair.random();
  setUpWallet(s.emu, s.venue, s.d, kp.publicKey(), {
    base: BIG,
    quote: BIG,
    approveBase: BIG,
    approveQuote: BIG,
    client: { canBuy: true, canSell: true, canCancel: true, canTransfer: true, isMarketMaker: false },
  });
  return kp;
}

const orderArgs = (user: string, side: Side, i: number): xdr.ScVal[] => [
  new Address(user).toScVal(),
  // Buys below, sells above the reference: they rest, so every transaction succeeds.
  nativeToScVal(
    encodeWasmOrderData({
      ...DEFAULT_ORDER_OPTIONS,
      quantity: 1000n + BigInt(i % 7),
      price: side === 'buy' ? 120_000n : 126_000n,
    }),
  ),
  nativeToScVal(encodeWasmCrossIdentifier(0n)),
  nativeToScVal(new Uint8Array([0])),
];

/** Submitters push orders as fast as the node lets them while ledgers close every `intervalMs`. */
async function perLedger(
  channels: number,
  ledgers: number,
  intervalMs: number,
): Promise<{ perLedger: number; tryAgain: number }> {
  const s = setUp(intervalMs);
  const server = await startRpcServer(s.emu, { port: await freePort() });
  const client = new rpc.Server(server.url, { allowHttp: true });
  const user = trader(s);
  const sources =
    channels === 0
      ? [user]
      : Array.from({ length: channels }, () => {
          const kp = Keypair.random();
          s.emu.fundAccount(kp.publicKey(), BIG);
          return kp;
        });
  let applied = 0;
  let tryAgain = 0;
  let closed = 0;
  const nextLedger = () =>
    new Promise<void>((resolve) => {
      const off = s.emu.onLedgerClosed(() => {
        off();
        resolve();
      });
    });
  s.emu.onLedgerClosed((c) => {
    applied += c.transactions.filter((t) => t.success).length;
    closed++;
  });
  s.emu.start();
  let n = 0;
  await Promise.all(
    sources.map(async (source) => {
      // A pipelining submitter: it keeps its own sequence number and sends the next order at once; the node
      // answers TRY_AGAIN_LATER while one of its transactions is pending, and it waits for the next ledger.
      let account = await client.getAccount(source.publicKey());
      // The ledger observer above counts closes; each submitter stops after the last one.
      for (;;) {
        if (closed >= ledgers) break;
        const raw = new TransactionBuilder(account, { fee: '100', networkPassphrase: s.emu.passphrase })
          .addOperation(
            new Contract(s.d.book.address).call('new_buy_order', ...orderArgs(user.publicKey(), 'buy', n++)),
          )
          .setTimeout(60)
          .build();
        const sim = await client.simulateTransaction(raw);
        if (!rpc.Api.isSimulationSuccess(sim) || sim.result === undefined) throw new Error('simulation failed');
        if (source !== user)
          sim.result.auth = await Promise.all(
            sim.result.auth.map((e) => authorizeEntry(e, user, s.emu.latest.seq + 20, s.emu.passphrase)),
          );
        const tx = rpc.assembleTransaction(raw, sim).build();
        tx.sign(source);
        const sent = await client.sendTransaction(tx);
        if (sent.status === 'PENDING') continue;
        if (sent.status === 'TRY_AGAIN_LATER') tryAgain++;
        await nextLedger();
        account = await client.getAccount(source.publicKey());
      }
    }),
  );
  s.emu.stop();
  await server.close();
  return { perLedger: applied / closed, tryAgain };
}

/** Admission and application without HTTP: `sources` signed placements per ledger, for `rounds` ledgers. */
export function capacity(sources: number, rounds: number): { admitPerSecond: number; applyPerSecond: number } {
  const s = setUp(0);
  const wallets = Array.from({ length: sources }, () => trader(s));
  s.emu.closeLedger();
  const envelopes: string[][] = Array.from({ length: rounds }, () => []);
  wallets.forEach((kp, w) => {
    // Alternate sides at overlapping prices so that half the orders match and settle.
    const side: Side = w % 2 === 0 ? 'buy' : 'sell';
    const args = [
      new Address(kp.publicKey()).toScVal(),
      nativeToScVal(encodeWasmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity: 1000n, price: 123_400n })),
      nativeToScVal(encodeWasmCrossIdentifier(0n)),
      nativeToScVal(new Uint8Array([0])),
    ];
    const seq = s.emu.world.accounts.get(kp.publicKey())?.seqNum ?? 0n;
    const rawAt = (r: number) =>
      new TransactionBuilder(new Account(kp.publicKey(), (seq + BigInt(r)).toString()), {
        fee: '100',
        networkPassphrase: s.emu.passphrase,
      })
        .addOperation(new Contract(s.d.book.address).call(side === 'buy' ? 'new_buy_order' : 'new_sell_order', ...args))
        .setTimeout(0)
        .build();
    // One simulation per wallet: its source-account authorization and resources hold for every round.
    const sim = METHODS.simulateTransaction?.(
      s.emu,
      { transaction: rawAt(0).toXDR() },
      {},
    ) as unknown as rpc.Api.RawSimulateTransactionResponse;
    for (let r = 0; r < rounds; r++) {
      const tx = rpc.assembleTransaction(rawAt(r), sim).build();
      tx.sign(kp);
      envelopes[r]?.push(tx.toXDR());
    }
  });
  let admitNs = 0n;
  let applyNs = 0n;
  let applied = 0;
  for (const round of envelopes) {
    const t0 = process.hrtime.bigint();
    for (const env of round) if (s.emu.submit(env).status !== 'PENDING') throw new Error('not admitted');
    const t1 = process.hrtime.bigint();
    applied += s.emu.closeLedger().transactions.filter((t) => t.success).length;
    applyNs += process.hrtime.bigint() - t1;
    admitNs += t1 - t0;
  }
  if (applied !== sources * rounds) throw new Error(`only ${applied} of ${sources * rounds} applied`);
  return {
    admitPerSecond: (sources * rounds) / (Number(admitNs) / 1e9),
    applyPerSecond: applied / (Number(applyNs) / 1e9),
  };
}

/** Simulations per second over HTTP through the SDK, one client, sequential. */
async function simulations(count: number): Promise<number> {
  const s = setUp(0);
  const server = await startRpcServer(s.emu, { port: await freePort() });
  const client = new rpc.Server(server.url, { allowHttp: true });
  const kp = trader(s);
  const raw = new TransactionBuilder(await client.getAccount(kp.publicKey()), {
    fee: '100',
    networkPassphrase: s.emu.passphrase,
  })
    .addOperation(new Contract(s.d.book.address).call('new_buy_order', ...orderArgs(kp.publicKey(), 'buy', 0)))
    .setTimeout(60)
    .build();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++)
    if (!rpc.Api.isSimulationSuccess(await client.simulateTransaction(raw))) throw new Error('simulation failed');
  const perSecond = count / (Number(process.hrtime.bigint() - t0) / 1e9);
  await server.close();
  return perSecond;
}

export async function run(): Promise<Row[]> {
  const single = await perLedger(0, 10, 400);
  const pooled = await perLedger(8, 10, 400);
  const cap = capacity(200, 5);
  const sims = await simulations(300);
  return [
    {
      benchmark: title,
      measure: 'orders included per ledger, one source account',
      value: fmt(single.perLedger, 2),
      baseline: `${single.tryAgain} TRY_AGAIN_LATER`,
    },
    {
      benchmark: title,
      measure: 'orders included per ledger, 8 channel accounts',
      value: `${fmt(pooled.perLedger, 2)} (${pooled.tryAgain} TRY_AGAIN_LATER)`,
      baseline: fmt(single.perLedger, 2),
      ratio: `${fmt(pooled.perLedger / single.perLedger, 2)}x`,
    },
    {
      benchmark: title,
      measure: 'transactions admitted per second (sendTransaction checks)',
      value: fmt(cap.admitPerSecond),
    },
    {
      benchmark: title,
      measure: 'transactions applied per second (ledger close, half of them matching)',
      value: fmt(cap.applyPerSecond),
    },
    { benchmark: title, measure: 'simulateTransaction calls per second over HTTP (SDK client)', value: fmt(sims) },
  ];
}
