/** Builders for trading pairs used across tests. */
import { readFileSync } from 'node:fs';
import { parseTradingPair, type TradingPair } from '../../src/core/pair.ts';

const here = new URL('../fixtures/pairs/', import.meta.url);

export function loadPairFixture(name: 'evm-pair' | 'wasm-pair'): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`${name}.json`, here), 'utf8')) as Record<string, unknown>;
}

export function pairWith(name: 'evm-pair' | 'wasm-pair', changes: Record<string, unknown> = {}): TradingPair {
  return parseTradingPair({ ...loadPairFixture(name), ...changes });
}

export const FIXTURE_DIR = here;
