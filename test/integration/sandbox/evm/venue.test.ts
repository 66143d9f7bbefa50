/**
 * Deploying a whole chain A venue from pair definitions onto an interval-mining node, as the sandbox command
 * does: one shared e-money token, a restricted base token and an order book per pair, funded and whitelisted
 * wallets, and complete TradingPair records with the deployed addresses.
 */
import { Wallet, type Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ORDER_OPTIONS } from '../../../../src/core/order-terms.ts';
import {
  encodeEvmCrossIdentifier,
  encodeEvmOrderData,
  encodeEvmReportingData,
} from '../../../../src/core/encoding/evm-order.ts';
import { ZERO_REPORTING } from '../../../../src/core/encoding/reporting.ts';
import { contractAt, sandboxProvider } from '../../../../src/sandbox/evm/chain.ts';
import { deployVenue, startEvmVenue, type EvmVenue } from '../../../../src/sandbox/evm/venue.ts';
import type { EvmNode } from '../../../../src/sandbox/evm/node.ts';
import { pairWith } from '../../../support/pairs.ts';

let node: EvmNode;
let venue: EvmVenue;
let stop: () => Promise<void>;

const bond = pairWith('evm-pair');
const xbond = pairWith('evm-pair', {
  id: 'tp-evm-xbond-eure',
  baseTokenData: { symbol: 'XBOND26' },
  baseTokenNativeScale: '10000',
});

const call = (c: Contract, method: string, ...args: unknown[]) => c.getFunction(method).staticCall(...args);

beforeAll(async () => {
  ({ node, venue, stop } = await startEvmVenue(
    { blockTimeMs: 1000 },
    {
      pairs: [{ pair: bond }, { pair: xbond, phase: 'closed' }],
      wallets: [
        {
          name: 'mm',
          marketMaker: true,
          balances: { BOND26: '10', XBOND26: '5', EURe: '1000' },
          allowances: { EURe: 'unlimited', XBOND26: '2.5' },
        },
        { name: 'plain', canCancel: false, beneficiary: false, balances: { EURe: '1' } },
      ],
    },
  ));
});
afterAll(async () => stop?.());

describe('deploying a chain A venue', () => {
  it('shares one quote token between pairs and gives each pair its own base token and order book', () => {
    const [a, b] = venue.pairs;
    expect(venue.chainId).toBe(80002);
    expect(a?.quoteToken).toBe(b?.quoteToken);
    expect(new Set([a?.baseToken, b?.baseToken, a?.orderBook, b?.orderBook]).size).toBe(4);
    expect(Object.values(venue.tokens).map((t) => [t.symbol, t.kind, t.decimals])).toEqual([
      ['BOND26', 'base', 8],
      ['EURe', 'quote', 6],
      ['XBOND26', 'base', 4],
    ]);
    expect([b?.pair.smartContractOrderBook, b?.pair.smartContractBase, b?.pair.id]).toEqual([
      b?.orderBook,
      b?.baseToken,
      'tp-evm-xbond-eure',
    ]);
  });

  it('leaves the node mining on its interval after deploying with automine', async () => {
    const provider = sandboxProvider(node.rpcUrl);
    try {
      expect(await provider.send('hardhat_getAutomine', [])).toBe(false);
    } finally {
      provider.destroy();
    }
  });

  it('funds, whitelists and approves wallets as specified, and books start in their phase', async () => {
    const provider = sandboxProvider(node.rpcUrl);
    try {
      const [a, b] = venue.pairs;
      const mm = venue.wallets.find((w) => w.name === 'mm');
      const plain = venue.wallets.find((w) => w.name === 'plain');
      const at = (name: 'RestrictedToken' | 'EMoneyToken' | 'OrderBook' | 'ClientRegistry', address: string) =>
        contractAt(name, address, provider);
      const xbondToken = at('RestrictedToken', b?.baseToken as string);
      const eure = at('EMoneyToken', a?.quoteToken as string);
      expect(await call(xbondToken, 'balanceOf', mm?.address)).toBe(50_000n);
      expect(await call(xbondToken, 'allowance', mm?.address, b?.orderBook)).toBe(25_000n);
      expect(await call(eure, 'allowance', mm?.address, a?.orderBook)).toBe(2n ** 256n - 1n);
      const registry = at('ClientRegistry', venue.registry);
      expect(await call(registry, 'readClientInfo', mm?.address)).toEqual([1n, true, true, true, true, true]);
      expect(await call(registry, 'readClientInfo', plain?.address)).toEqual([2n, true, true, true, false, false]);
      const beneficiaries = [
        b?.orderBook,
        venue.commissionWallet.address,
        venue.operator.address,
        mm?.address,
        plain?.address,
      ];
      expect(await Promise.all(beneficiaries.map((x) => call(xbondToken, 'isBeneficiary', x)))).toEqual([
        true,
        true,
        true,
        true,
        false,
      ]);
      expect([
        await call(at('OrderBook', a?.orderBook as string), 'getOrderBookPhase'),
        await call(at('OrderBook', b?.orderBook as string), 'getOrderBookPhase'),
      ]).toEqual([1n, 2n]);
    } finally {
      provider.destroy();
    }
  });

  it('a funded wallet trades with the key the venue hands out (a real transaction in an interval block)', async () => {
    const provider = sandboxProvider(node.rpcUrl);
    try {
      const mm = venue.wallets.find((w) => w.name === 'mm');
      const book = contractAt(
        'OrderBook',
        venue.pairs[0]?.orderBook as string,
        new Wallet(mm?.privateKey as string, provider),
      );
      const orderData = encodeEvmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity: 10_000n, price: 990_000n });
      const tx = await book
        .getFunction('newBuyOrder')
        .send(orderData, encodeEvmReportingData(ZERO_REPORTING), encodeEvmCrossIdentifier(0n));
      expect((await tx.wait())?.status).toBe(1);
      expect(await book.getFunction('countBuyOrders').staticCall()).toBe(1n);
    } finally {
      provider.destroy();
    }
  });

  it('refuses a wallet that names a token no pair uses, before sending anything', async () => {
    const provider = sandboxProvider(node.rpcUrl);
    try {
      const nonce = await provider.getTransactionCount(venue.operator.address);
      await expect(
        deployVenue(node.rpcUrl, { pairs: [{ pair: bond }], wallets: [{ name: 'x', balances: { USDX: '1' } }] }),
      ).rejects.toMatchObject({
        code: 'E_SANDBOX',
        details: { unknown: ['USDX'] },
      });
      expect(await provider.getTransactionCount(venue.operator.address)).toBe(nonce);
    } finally {
      provider.destroy();
    }
  });
});
