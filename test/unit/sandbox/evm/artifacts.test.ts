/**
 * The compiled chain A contracts: artefacts follow the sources (a changed source can never be served from the
 * cache), fit the EIP-170 size limit, and expose the specification's interface with every error mapped to a
 * typed error.
 */
import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { fromEvmRevert } from '../../../../src/core/venue-errors.ts';
import {
  CODE_SIZE_LIMIT,
  CONTRACT_NAMES,
  loadArtifacts,
  readSources,
  sourceHash,
} from '../../../../src/sandbox/evm/compile.ts';

describe('chain A contract artefacts', () => {
  it('are keyed by a hash of every source, so editing any source invalidates the cache', () => {
    const sources = readSources();
    const hash = sourceHash(sources);
    expect(sourceHash(structuredClone(sources))).toBe(hash);
    const changed = Object.keys(sources).map((name) =>
      sourceHash({ ...sources, [name]: { content: `${sources[name]?.content} ` } }),
    );
    expect(new Set([hash, ...changed]).size).toBe(Object.keys(sources).length + 1);
    expect(loadArtifacts().hash).toBe(hash);
  });

  it('every contract fits the 24 KiB code size limit', () => {
    const a = loadArtifacts();
    const over = CONTRACT_NAMES.filter(
      (n) => a.contracts[n].deployedSize > CODE_SIZE_LIMIT || a.contracts[n].deployedSize === 0,
    );
    expect(over).toEqual([]);
  });

  it('the order book has the participant interface of the specification', () => {
    const book = new Interface(loadArtifacts().contracts.OrderBook.abi as never);
    const signatures = [
      'newBuyOrder(bytes,bytes,bytes)',
      'newSellOrder(bytes,bytes,bytes)',
      'cancelBuyOrder(uint64)',
      'cancelSellOrder(uint64)',
      'getConfig()',
      'getOrderBookPhase()',
      'countBuyOrders()',
      'countSellOrders()',
      'bestFiftyOffers()',
      'bestBidOffer()',
      'getLiquidityBand()',
      'getStaticRefPrice()',
      'getPreTradeControlConfig()',
      'getVolatilityManagementConfig()',
    ];
    expect(signatures.filter((s) => book.getFunction(s) === null)).toEqual([]);
    expect(book.getFunction('getConfig()')?.outputs[0]?.format()).toBe(
      '((uint256,uint256),(uint256,uint256),uint64,uint64,uint64,address,address,address,address,address,address,uint8,bytes11)',
    );
    expect(book.getFunction('bestFiftyOffers()')?.outputs.map((o) => o.format())).toEqual(['uint256[]', 'uint256[]']);
    expect(book.getEvent('NewBuyOrder')?.format('full')).toBe(
      'event NewBuyOrder(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
    );
  });

  it('every order book and token error maps to a typed error of the catalogue', () => {
    const errors = CONTRACT_NAMES.flatMap((n) =>
      loadArtifacts()
        .contracts[n].abi.filter((f) => f.type === 'error')
        .map((f) => String(f.name)),
    );
    const internal = new Set([
      'OrderBook_InvalidPhase',
      'OrderBook_InvalidConfig',
      'ERC20InvalidSender',
      'ERC20InvalidReceiver',
      'ERC20InvalidApprover',
      'ERC20InvalidSpender',
    ]);
    const unmapped = [...new Set(errors)].filter(
      (n) => !internal.has(n) && fromEvmRevert(n).code === 'E_VENUE_CONTRACT_ERROR',
    );
    expect(unmapped).toEqual([]);
    expect(errors).toEqual(
      expect.arrayContaining([
        'OrderBook_NotAllowedToBuy',
        'OrderBook_NotAllowedToSell',
        'OrderBook_InvalidInputOrderData',
        'ERC20InsufficientAllowance',
        'ERC20InsufficientBalance',
      ]),
    );
  });
});
