/**
 * The two sandbox chains as the crash test sees them: a node with one pair, the bot's wallet and a taker
 * wallet, and the test's own reads of the chain (never the bot's code): the wallet's resting orders with what
 * they lock, the cross identifiers of every order it placed, its balances; plus the taker's crossing orders.
 */
import { readFileSync } from 'node:fs';
import { Keypair } from '@stellar/stellar-sdk';
import { Wallet, type Contract, type JsonRpcProvider } from 'ethers';
import {
  encodeEvmCrossIdentifier,
  encodeEvmOrderData,
  encodeEvmReportingData,
} from '../../../src/core/encoding/evm-order.ts';
import { encodeWasmCrossIdentifier, encodeWasmOrderData } from '../../../src/core/encoding/wasm-order.ts';
import { ZERO_REPORTING } from '../../../src/core/encoding/reporting.ts';
import { DEFAULT_ORDER_OPTIONS, type Side } from '../../../src/core/order-terms.ts';
import { parseTradingPair, type TradingPair } from '../../../src/core/pair.ts';
import type { PairOverrides } from '../../../src/core/rules.ts';
import { contractAt, sandboxProvider } from '../../../src/sandbox/evm/chain.ts';
import { startEvmNode } from '../../../src/sandbox/evm/node.ts';
import { deployVenue } from '../../../src/sandbox/evm/venue.ts';
import { baseNative, lockFor } from '../../../src/sandbox/matching/amounts.ts';
import type { BookParams } from '../../../src/sandbox/matching/types.ts';
import { freePort } from '../../../src/sandbox/net.ts';
import { decodeBookEvent } from '../../../src/sandbox/wasm/contracts/book-events.ts';
import { deployPair, deployVenue as deployWasmVenue } from '../../../src/sandbox/wasm/deploy.ts';
import { startWasmNode } from '../../../src/sandbox/wasm/node.ts';
import { controlCall, setUpWallet } from '../../../src/sandbox/wasm/operator.ts';
import { scv } from '../../../src/sandbox/wasm/scval.ts';
import type { DriverConfig } from './crash-driver.ts';

export interface ChainOrder {
  readonly orderId: bigint;
  readonly side: Side;
  readonly remaining: bigint;
  readonly price: bigint;
}

export interface ChainUnderTest {
  readonly name: 'evm' | 'wasm';
  readonly wallet: string;
  /** Token addresses the store keys inventory by. */
  readonly tokens: { readonly base: string; readonly quote: string };
  config(store: string, seed: number): DriverConfig;
  restingOrders(): Promise<ChainOrder[]>;
  /** Cross identifier of every OrderReceived of the wallet, in chain order. */
  placedCrossIds(): Promise<bigint[]>;
  balances(): Promise<{ base: bigint; quote: bigint }>;
  /** What the wallet's resting orders hold in the book, by the venue's rules. */
  locked(orders: readonly ChainOrder[]): { base: bigint; quote: bigint };
  /** A crossing order of the taker wallet (raw internal units). */
  taker(side: Side, quantity: bigint, price: bigint): Promise<void>;
  stop(): Promise<void>;
}

function lockedBy(params: BookParams, orders: readonly ChainOrder[]): { base: bigint; quote: bigint } {
  let base = 0n;
  let quote = 0n;
  for (const o of orders) {
    if (o.side === 'sell') base += baseNative(o.remaining, params.scales);
    else quote += lockFor(o.price, o.remaining, params.makerBps, params.scales);
  }
  return { base, quote };
}

const fixture = (name: string): TradingPair =>
  parseTradingPair(JSON.parse(readFileSync(new URL(`../../fixtures/pairs/${name}.json`, import.meta.url), 'utf8')));

export async function startEvmChain(): Promise<ChainUnderTest> {
  const pair = fixture('evm-pair');
  const node = await startEvmNode({ automine: true, blockTimeMs: 250 });
  const funded = { balances: { BOND26: '1000', EURe: '1000000' } };
  const venue = await deployVenue(node.rpcUrl, {
    pairs: [{ pair }],
    wallets: [
      { name: 'mm', ...funded },
      { name: 'taker', ...funded, allowances: { BOND26: 'unlimited', EURe: 'unlimited' } },
    ],
  }).catch(async (e: unknown) => {
    await node.stop();
    throw e;
  });
  const provider: JsonRpcProvider = sandboxProvider(node.rpcUrl);
  const deployed = venue.pairs[0] as (typeof venue.pairs)[number];
  const [mm, taker] = venue.wallets as [(typeof venue.wallets)[number], (typeof venue.wallets)[number]];
  const book = contractAt('OrderBook', deployed.orderBook, provider);
  const takerBook = book.connect(new Wallet(taker.privateKey, provider)) as Contract;
  const token = (a: string) => contractAt('EMoneyToken', a, provider);
  return {
    name: 'evm',
    wallet: mm.address,
    tokens: { base: deployed.baseToken, quote: deployed.quoteToken },
    config: (store, seed) => ({
      chain: 'evm',
      rpcUrl: node.rpcUrl,
      chainId: node.chainId,
      key: mm.privateKey,
      pair: deployed.pair,
      addresses: { orderBook: deployed.orderBook, base: deployed.baseToken, quote: deployed.quoteToken },
      store,
      seed,
      bids: ['99.5', '99.6', '99.7', '99.8', '99.9'],
      asks: ['100.1', '100.2', '100.3', '100.4', '100.5'],
      sizes: ['0.5', '1', '1.5'],
      maxLive: 6,
    }),
    restingOrders: async () => {
      const out: ChainOrder[] = [];
      for (const side of [1, 2]) {
        const ids = (await book.getFunction('getOrderIds')(side, 1000)) as bigint[];
        for (const id of ids) {
          const [client, , remaining, price] = (await book.getFunction('getOrder')(id)) as [
            string,
            bigint,
            bigint,
            bigint,
          ];
          if (client.toLowerCase() === mm.address.toLowerCase())
            out.push({ orderId: id, side: side === 1 ? 'buy' : 'sell', remaining, price });
        }
      }
      return out;
    },
    placedCrossIds: async () => {
      const logs = await book.queryFilter(book.filters.OrderReceived?.(mm.address) as never, 0, 'latest');
      return logs.map((l) => BigInt((l as unknown as { args: { crossIdentifier: bigint } }).args.crossIdentifier));
    },
    balances: async () => ({
      base: (await token(deployed.baseToken).getFunction('balanceOf')(mm.address)) as bigint,
      quote: (await token(deployed.quoteToken).getFunction('balanceOf')(mm.address)) as bigint,
    }),
    locked: (orders) => lockedBy(deployed.params, orders),
    taker: async (side, quantity, price) => {
      const orderData = encodeEvmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity, price });
      const fn = takerBook.getFunction(side === 'buy' ? 'newBuyOrder' : 'newSellOrder');
      const tx = await fn(orderData, encodeEvmReportingData(ZERO_REPORTING), encodeEvmCrossIdentifier(0n));
      await tx.wait();
    },
    stop: async () => {
      provider.destroy();
      await node.stop();
    },
  };
}

export async function startWasmChain(): Promise<ChainUnderTest> {
  const pair = fixture('wasm-pair');
  const overrides: PairOverrides = { minimumSize: '0.005' };
  const node = await startWasmNode({ ledgerIntervalMs: 250, port: await freePort(), host: '127.0.0.1' });
  const emu = node.emulator;
  const venue = deployWasmVenue(emu, Keypair.fromRawEd25519Seed(Buffer.alloc(32, 9)));
  const d = deployPair(emu, venue, { pair, prefunded: true, overrides });
  const mm = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 11));
  const taker = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 12));
  const client = { canBuy: true, canSell: true, canCancel: true, canTransfer: true, isMarketMaker: false };
  const big = 10n ** 15n;
  setUpWallet(emu, venue, d, mm.publicKey(), { base: big, quote: big, client });
  setUpWallet(emu, venue, d, taker.publicKey(), { base: big, quote: big, approveBase: big, approveQuote: big, client });
  const channels = [21, 22, 23].map((n) => Keypair.fromRawEd25519Seed(Buffer.alloc(32, n)));
  for (const c of channels) emu.fundAccount(c.publicKey(), 100_000_000_000n);
  // The test's own record of every order book event, taken as each ledger closes.
  const received: bigint[] = [];
  const close = emu.closeLedger.bind(emu);
  const tokens = { base: d.addresses.base.strkey, quote: d.addresses.quote.strkey };
  emu.closeLedger = () => {
    const closed = close();
    for (const e of closed.events) {
      if (e.contractId !== d.addresses.orderBook.strkey) continue;
      const b = decodeBookEvent(e.topics, e.data, tokens);
      if (b?.type === 'OrderReceived' && b.client === mm.publicKey()) received.push(b.crossIdentifier);
    }
    return closed;
  };
  const params = d.book.book.params;
  return {
    name: 'wasm',
    wallet: mm.publicKey(),
    tokens,
    config: (store, seed) => ({
      chain: 'wasm',
      rpcUrl: node.rpc.url,
      networkPassphrase: emu.passphrase,
      key: mm.secret(),
      channels: channels.map((c) => c.secret()),
      pair: { ...pair, id: d.name },
      overrides,
      addresses: { orderBook: d.addresses.orderBook.strkey, base: tokens.base, quote: tokens.quote },
      store,
      seed,
      bids: ['12.2', '12.22', '12.24', '12.26', '12.28'],
      asks: ['12.4', '12.42', '12.44', '12.46', '12.48'],
      sizes: ['1', '1.5', '2'],
      maxLive: 6,
    }),
    restingOrders: async () =>
      [...d.book.book.buys, ...d.book.book.sells]
        .filter((o) => o.wallet === mm.publicKey())
        .map((o) => ({ orderId: o.id, side: o.side, remaining: o.remaining, price: o.price })),
    placedCrossIds: async () => [...received],
    balances: async () => ({ base: d.base.balanceOf(mm.publicKey()), quote: d.quote.balanceOf(mm.publicKey()) }),
    locked: (orders) => lockedBy(params, orders),
    taker: async (side, quantity, price) => {
      const data = encodeWasmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity, price });
      controlCall(emu, taker.publicKey(), d.book.address, side === 'buy' ? 'new_buy_order' : 'new_sell_order', [
        scv.address(taker.publicKey()),
        scv.bytes(data),
        scv.bytes(encodeWasmCrossIdentifier(0n)),
        scv.bytes(new Uint8Array([0])),
      ]);
    },
    stop: () => node.stop(),
  };
}
