/** One place per default: what the configuration schema says a key defaults to is what the adapter does without it. */
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../src/chains/evm/options.ts';
import { botConfigSchema } from '../../../src/core/config/bot-config.ts';
import { VENUE_DEFAULTS } from '../../../src/core/config/venue-defaults.ts';

describe('defaults written once', () => {
  it("chain A confirmations: the schema's default is the adapter's", () => {
    const config = botConfigSchema.parse({ chains: { evm: { rpcUrl: 'http://127.0.0.1:8545' } } });
    const adapter = resolveOptions({ rpcUrl: '', chainId: 1n, privateKey: '', journal: null as never });
    expect(adapter.follower.confirmations).toBe(config.chains.evm?.confirmations);
  });

  it("the venue section: the schema fills in the defaults module's figures, which a sandbox connection uses", () => {
    const config = botConfigSchema.parse({
      venue: {
        restUrl: 'https://venue.example/api/v1',
        wsUrl: 'wss://venue.example/ws',
        wsHost: 'venue.example',
        apiKey: { env: 'DLT_MM_API_KEY' },
      },
    });
    const venue = config.venue!;
    expect({
      requestTimeoutMs: venue.requestTimeoutMs,
      tradeInfoPollMs: venue.tradeInfoPollMs,
      marketDataStaleMs: venue.marketDataStaleMs,
    }).toEqual(VENUE_DEFAULTS);
  });
});
