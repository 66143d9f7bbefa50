/** One place per default: what the configuration schema says a key defaults to is what the adapter does without it. */
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../src/chains/evm/options.ts';
import { botConfigSchema } from '../../../src/core/config/bot-config.ts';

describe('defaults written once', () => {
  it("chain A confirmations: the schema's default is the adapter's", () => {
    const config = botConfigSchema.parse({ chains: { evm: { rpcUrl: 'http://127.0.0.1:8545' } } });
    const adapter = resolveOptions({ rpcUrl: '', chainId: 1n, privateKey: '', journal: null as never });
    expect(adapter.follower.confirmations).toBe(config.chains.evm?.confirmations);
  });
});
