/**
 * Sandbox pair sets of any size for the capacity benchmark: the sandbox's four pairs, then copies of them
 * (one new base token each, same rules), half on each chain up to the 24 chain B books the sandbox's venue
 * indexer follows (its getEvents filters take five order books each, five filters a request, as the chain
 * B RPC does), the rest on chain A. Every kind of pair (native scale differing from the internal one,
 * pre-funded and no-prefund chain B books) is repeated.
 */
import { DEFAULT_PAIRS, type SandboxPairDefinition } from '../../../src/sandbox/venue/default-pairs.ts';

export const MAX_WASM_PAIRS = 24;

function copyOf(template: SandboxPairDefinition, copy: number): SandboxPairDefinition {
  if (copy === 0) return template;
  const tag = String(copy).padStart(2, '0');
  const base = `${template.pair.baseTokenData.symbol}C${tag}`;
  const isin = `${template.pair.baseTokenData.isin.slice(0, 9)}${tag}${template.pair.baseTokenData.isin.slice(11)}`;
  return {
    ...template,
    pair: {
      ...template.pair,
      id: `${template.pair.id}-c${tag}`,
      symbol: `${base}${template.pair.quoteTokenSymbol}`,
      baseTokenData: { ...template.pair.baseTokenData, symbol: base, isin },
    },
    instrument: { ...template.instrument, fullName: `${template.instrument.fullName} (copy ${tag})` },
  };
}

function chainPairs(chain: 'evm' | 'wasm', count: number): SandboxPairDefinition[] {
  const templates = DEFAULT_PAIRS.filter((p) => p.chain === chain);
  return Array.from({ length: count }, (_, i) =>
    copyOf(templates[i % templates.length] as SandboxPairDefinition, Math.floor(i / templates.length)),
  );
}

export function capacityPairs(count: number): SandboxPairDefinition[] {
  if (count < 4 || count % 2 !== 0) throw new Error('pair count must be even and at least 4');
  const wasm = Math.min(count / 2, MAX_WASM_PAIRS);
  return [...chainPairs('evm', count - wasm), ...chainPairs('wasm', wasm)];
}
