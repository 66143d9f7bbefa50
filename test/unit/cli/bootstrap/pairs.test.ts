import { describe, expect, it } from 'vitest';
import { bindingOf, configuredEntry, walletPairs } from '../../../../src/cli/bootstrap/pairs.ts';
import type { BotConfig } from '../../../../src/core/config/bot-config.ts';
import { parseBotConfig } from '../../../../src/core/config/load.ts';
import { DltError } from '../../../../src/core/errors.ts';
import { pairWith } from '../../../support/pairs.ts';

const bond = pairWith('evm-pair');
const fund = pairWith('wasm-pair');
const config = (pairs: string): BotConfig =>
  parseBotConfig(
    `venue: { restUrl: 'http://127.0.0.1:1/api/v1', wsUrl: 'ws://127.0.0.1:1/event/realtime', wsHost: h, dateHeader: x-amz-date, apiKey: { env: K }, accessToken: { env: T } }
chains: { evm: { rpcUrl: 'http://127.0.0.1:2', chainId: 1 }, wasm: { rpcUrl: 'http://127.0.0.1:3', networkPassphrase: p } }
wallets: [{ id: a, chain: evm, key: { env: A } }, { id: b, chain: evm, key: { env: B } }, { id: c, chain: wasm, key: { env: C } }]
pairs:
${pairs}`,
    'test.yaml',
  );
const entry = (wallet: string, base: string, more = '') =>
  `  - { blockChain: ${base === 'FUND1' ? 'WASM_CHAIN_TESTNET' : 'EVM_CHAIN_TESTNET'}, base: ${base}, quote: EURe, wallet: ${wallet}, strategy: s.yaml${more} }`;

describe('matching a configured pair to a listed one', () => {
  it("is the same wallet's entry with the pair's chain, base symbol and quote symbol", () => {
    const c = config(
      [
        entry('a', 'BOND26', ', valueMarginBps: 300'),
        entry('b', 'BOND26', ', valueMarginBps: 400, enabled: false'),
        entry('c', 'FUND1'),
      ].join('\n'),
    );
    expect(configuredEntry(c.pairs, 'a', bond)?.valueMarginBps).toBe(300);
    expect(configuredEntry(c.pairs, 'b', bond)?.valueMarginBps).toBe(400);
    // Another chain with the same symbols is another pair; a wallet without an entry has none.
    expect(configuredEntry(c.pairs, 'a', pairWith('evm-pair', { blockChain: 'WASM_CHAIN_TESTNET' }))).toBeUndefined();
    expect(configuredEntry(c.pairs, 'c', bond)).toBeUndefined();
    expect(configuredEntry(c.pairs, 'a', pairWith('evm-pair', { quoteTokenSymbol: 'USDe' }))).toBeUndefined();
  });

  it("binds the pair with its entry's overrides, and without them for a pair no entry names", () => {
    const c = config(entry('a', 'BOND26', ", valueMarginBps: 300, minimumSize: '2'"));
    const configured = bindingOf(bond, configuredEntry(c.pairs, 'a', bond));
    const plain = bindingOf(bond, undefined);
    expect(configured.rules.valueMarginBps).toBe(300);
    expect(plain.rules.valueMarginBps).not.toBe(300);
    expect(configured.rules.minimumSize.toFixed()).toBe('2');
    expect(configured.pairId).toBe(bond.id);
  });

  it('trades the enabled pairs a wallet names, drops a disabled entry of a sandbox pair, and refuses one not listed on its chain', () => {
    const c = config([entry('a', 'BOND26'), entry('b', 'BOND26', ', enabled: false')].join('\n'));
    const listed = [bond, fund];
    expect(
      walletPairs(
        listed,
        {
          id: 'a',
          chain: 'evm',
          key: 'k',
          channels: [],
          marketMaker: true,
          pairs: [{ blockChain: 'EVM_CHAIN_TESTNET', base: 'BOND26', quote: 'EURe' }],
        },
        c,
      ).map((p) => p.binding.pairId),
    ).toEqual([bond.id]);
    // A sandbox manifest assigns pairs by id: the disabled entry of the same wallet keeps it from trading.
    expect(
      walletPairs(
        listed,
        { id: 'b', chain: 'evm', key: 'k', channels: [], marketMaker: true, pairs: [{ id: bond.id }] },
        c,
      ),
    ).toEqual([]);
    expect(
      walletPairs(
        listed,
        { id: 'x', chain: 'evm', key: 'k', channels: [], marketMaker: true, pairs: [{ id: bond.id }] },
        c,
      ).map((p) => p.entry),
    ).toEqual([undefined]);
    const wrongChain = () =>
      walletPairs(
        listed,
        { id: 'c', chain: 'wasm', key: 'k', channels: [], marketMaker: true, pairs: [{ id: bond.id }] },
        c,
      );
    expect(wrongChain).toThrow(DltError);
    expect(wrongChain).toThrow(/wallet c: pair .* is not listed on wasm/);
  });
});
