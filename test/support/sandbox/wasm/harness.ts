/**
 * One emulator per test file: manual ledger close, a test clock, the RPC server on a free loopback port, the
 * venue and the sample chain B pair deployed, and helpers that go through `@stellar/stellar-sdk` only.
 */
import { readFileSync } from 'node:fs';
import {
  Address,
  Contract,
  Keypair,
  nativeToScVal,
  rpc,
  TransactionBuilder,
  type Transaction,
  type xdr,
} from '@stellar/stellar-sdk';
import { encodeWasmCrossIdentifier, encodeWasmOrderData } from '../../../../src/core/encoding/wasm-order.ts';
import { DEFAULT_ORDER_OPTIONS, type OrderOptions } from '../../../../src/core/order-terms.ts';
import { parseTradingPair } from '../../../../src/core/pair.ts';
import { freePort } from '../../../../src/sandbox/net.ts';
import { deployPair, deployVenue, type BookDeployment, type Venue } from '../../../../src/sandbox/wasm/deploy.ts';
import { WasmEmulator } from '../../../../src/sandbox/wasm/emulator.ts';
import { setUpWallet } from '../../../../src/sandbox/wasm/operator.ts';
import { startRpcServer, type RunningRpc } from '../../../../src/sandbox/wasm/rpc-server.ts';
import { TestClock } from '../../clock.ts';
import { perFile } from '../../per-file.ts';
export { TestClock };

export const PAIR = parseTradingPair(
  JSON.parse(readFileSync(new URL('../../../fixtures/pairs/wasm-pair.json', import.meta.url), 'utf8')),
);

export interface Harness {
  readonly emu: WasmEmulator;
  readonly clock: TestClock;
  readonly rpcServer: RunningRpc;
  readonly server: rpc.Server;
  readonly venue: Venue;
  readonly pair: BookDeployment;
  readonly noPrefund: BookDeployment;
  close(): Promise<void>;
}

export async function startHarness(options: { retentionLedgers?: number } = {}): Promise<Harness> {
  const clock = new TestClock(Date.now());
  const emu = new WasmEmulator({ clock, ledgerIntervalMs: 0, retentionLedgers: options.retentionLedgers });
  const rpcServer = await startRpcServer(emu, { port: await freePort() });
  const venue = deployVenue(emu, Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)));
  const pair = deployPair(emu, venue, { pair: PAIR, prefunded: true, overrides: { minimumSize: '0.005' } });
  const noPrefund = deployPair(emu, venue, { pair: { ...PAIR, id: `${PAIR.id}-np` }, prefunded: false });
  emu.closeLedger();
  return {
    emu,
    clock,
    rpcServer,
    server: new rpc.Server(rpcServer.url, { allowHttp: true }),
    venue,
    pair,
    noPrefund,
    close: () => rpcServer.close(),
  };
}

/** A funded, registered trading wallet with trustlines and approvals for the order book. */
export function wallet(
  h: Harness,
  d: BookDeployment,
  opts: { base?: bigint; quote?: bigint; mm?: boolean; canBuy?: boolean; canSell?: boolean; canCancel?: boolean } = {},
): Keypair {
  const kp = Keypair.random();
  setUpWallet(h.emu, h.venue, d, kp.publicKey(), {
    base: opts.base ?? 1_000_000_000_000n,
    quote: opts.quote ?? 1_000_000_000_000n,
    approveBase: 1_000_000_000_000n,
    approveQuote: 1_000_000_000_000n,
    client: {
      canBuy: opts.canBuy ?? true,
      canSell: opts.canSell ?? true,
      canCancel: opts.canCancel ?? true,
      canTransfer: true,
      isMarketMaker: opts.mm ?? false,
    },
  });
  return kp;
}

/** A bare funded account (a channel account, for example). */
export function account(h: Harness): Keypair {
  const kp = Keypair.random();
  h.emu.fundAccount(kp.publicKey(), 100_000_000_000n);
  return kp;
}

export async function build(
  h: Harness,
  source: Keypair,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
  timeoutSeconds = 300,
): Promise<Transaction> {
  const acct = await h.server.getAccount(source.publicKey());
  return (
    new TransactionBuilder(acct, { fee: '100', networkPassphrase: h.emu.passphrase })
      .addOperation(new Contract(contract).call(fn, ...args))
      // Time bounds from the emulator's clock, which tests move ahead of the wall clock `setTimeout` reads.
      .setTimebounds(0, Number(h.emu.nowSeconds()) + timeoutSeconds)
      .build()
  );
}

/** The Soroban data a prepared transaction carries (cloning a transaction does not keep it). */
export function sorobanDataOf(tx: Transaction): xdr.SorobanTransactionData | undefined {
  const env = tx.toEnvelope();
  return env.type === 'envelopeTypeTx' && env.value.tx.ext.type === 'sorobanData' ? env.value.tx.ext.value : undefined;
}

/**
 * The arguments of `new_buy_order` / `new_sell_order` for `user`: the order data (default options unless given),
 * the cross identifier (0 unless given) and empty reporting data.
 */
export function orderArgs(
  user: string,
  terms: Partial<OrderOptions> & { readonly quantity: bigint; readonly price: bigint },
  crossId: Uint8Array = encodeWasmCrossIdentifier(0n),
): xdr.ScVal[] {
  return [
    new Address(user).toScVal(),
    nativeToScVal(encodeWasmOrderData({ ...DEFAULT_ORDER_OPTIONS, ...terms })),
    nativeToScVal(crossId),
    nativeToScVal(new Uint8Array([0])),
  ];
}

export const hashOf = (tx: Transaction): string => Buffer.from(tx.hash()).toString('hex');

/** The contract error code a failed transaction's diagnostic event reports, or null. */
export function failedContractCode(res: rpc.Api.GetTransactionResponse): number | null {
  const topic = res.status === 'FAILED' ? res.diagnosticEventsXdr?.[0]?.event.body.v0.topics[1] : undefined;
  return topic?.type === 'scvError' && topic.error.type === 'sceContract' ? topic.error.contractCode : null;
}

/** Simulate, assemble, sign with the source, send, close the ledger, read the outcome. */
export async function submit(
  h: Harness,
  source: Keypair,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
): Promise<rpc.Api.GetTransactionResponse> {
  const tx = await h.server.prepareTransaction(await build(h, source, contract, fn, args));
  tx.sign(source);
  const sent = await h.server.sendTransaction(tx);
  if (sent.status !== 'PENDING') throw new Error(`send: ${sent.status}`);
  h.emu.closeLedger();
  return h.server.getTransaction(sent.hash);
}

/** The file's harness, started before its tests and closed after them (`perFile`). */
export function fileHarness(options: Parameters<typeof startHarness>[0] = {}): Harness {
  return perFile(() => startHarness(options));
}
