import { describe, expect, it } from 'vitest';
import { checkSecrets, parseBotConfig, parseStrategyConfig, readSecret } from '../../../src/core/config/load.ts';
import { DltError } from '../../../src/core/errors.ts';
import { minimalBotYaml } from '../../support/config/minimal-bot.ts';
import { thrown } from '../../support/errors.ts';

const valid = minimalBotYaml(["evm: { rpcUrl: 'https://rpc.example', chainId: 80002 }"]);

function problems(text: string): string[] {
  try {
    parseBotConfig(text, 'bot.yaml');
  } catch (e) {
    if (e instanceof DltError && e.code === 'E_CONFIG_INVALID') return e.details.problems as string[];
    throw e;
  }
  return [];
}

describe('bot config', () => {
  it('accepts a valid file and fills defaults', () => {
    const c = parseBotConfig(valid, 'bot.yaml');
    expect(c.pairs[0]?.valueMarginBps).toBe(200);
    expect(c.telemetry.metricsPort).toBe(9464);
    expect(c.chains.evm?.confirmations).toBe(2);
  });
  it('lists every problem at once: unknown keys, wrong types, bad enums, cross-field rules', () => {
    const p = problems(`
venue:
  restUrl: not-a-url
  wsUrl: wss://venue.example/ws
  wsHost: venue.example
  apiKey: { env: DLT_MM_API_KEY }
  accessToken: { env: TOKEN }
  colour: blue
wallets:
  - { id: w, chain: solana, key: { env: K } }
pairs:
  - { blockChain: EVM_CHAIN, base: B, quote: Q, wallet: w, strategy: s.yaml, valueMarginBps: -1 }
telemetry: { metricsPort: 70000 }
`);
    const text = p.join('\n');
    expect(text).toMatch(/venue\.restUrl/);
    expect(text).toMatch(/colour/);
    expect(text).toMatch(/wallets\.0\.chain/);
    expect(text).toMatch(/pairs\.0\.valueMarginBps/);
    expect(text).toMatch(/telemetry\.metricsPort/);
    expect(p.length).toBeGreaterThanOrEqual(5);
  });
  it('an obligation amount that is not a decimal is a listed problem, not a crash', () => {
    const p = problems(
      `${valid}sandbox:\n  manifest: m.json\n  obligations: { maxSpread: 2%, minSize: '0', presenceTarget: 50 }\n`,
    );
    expect(p).toContain('sandbox.obligations.maxSpread: expected a non-negative decimal string like "0.5"');
    expect(p).toContain('sandbox.obligations.minSize: must be greater than zero');
  });
  it("evaluation: markout horizons each once, the board's among them, fee rates as decimal strings", () => {
    expect(parseBotConfig(valid, 'bot.yaml').evaluation).toEqual({
      markoutHorizonsMs: [1_000, 10_000, 60_000, 300_000],
      boardHorizonMs: 60_000,
      chainFeeRate: { evm: '0', wasm: '0' },
    });
    expect(problems(`${valid}evaluation:\n  chainFeeRate: { evm: 2500 }\n`)).toEqual([
      'evaluation.chainFeeRate.evm: Invalid input: expected string, received number',
    ]);
    const p = problems(`${valid}evaluation:\n  markoutHorizonsMs: [1000, 1000, 5000]\n  boardHorizonMs: 60000\n`);
    expect(p).toEqual([
      'evaluation.markoutHorizonsMs: each horizon at most once',
      'evaluation.boardHorizonMs: 60000 is not one of markoutHorizonsMs (1000, 1000, 5000)',
    ]);
  });
  it('refuses a secret written inline', () => {
    const p = problems(valid.replace('{ env: DLT_MM_EVM_KEY }', '"0xabc"'));
    expect(p.join('\n')).toMatch(/wallets\.0\.key: a secret must be \{env: NAME\} or \{file: path\}/);
  });
  it('checks references between sections', () => {
    const p = problems(valid.replace('wallet: evm-main', 'wallet: nobody'));
    expect(p).toEqual(['pairs.0.wallet: no wallet with id "nobody"']);
    const wrongChain = problems(valid.replace('blockChain: EVM_CHAIN_TESTNET', 'blockChain: WASM_CHAIN_TESTNET'));
    expect(wrongChain).toEqual(['pairs.0.wallet: wallet evm-main is on evm, the pair on wasm']);
  });
  it('takes participant tokens from client credentials or a fixed token: exactly one of them', () => {
    const oauth = valid.replace(
      '  accessToken: { file: secrets/token }',
      `  oauth:
    tokenUrl: https://auth.venue.example/oauth2/token
    clientId: { env: DLT_MM_CLIENT_ID }
    clientSecret: { env: DLT_MM_CLIENT_SECRET }
    scope: orders:read`,
    );
    expect(parseBotConfig(oauth, 'bot.yaml').venue?.oauth).toEqual({
      tokenUrl: 'https://auth.venue.example/oauth2/token',
      clientId: { env: 'DLT_MM_CLIENT_ID' },
      clientSecret: { env: 'DLT_MM_CLIENT_SECRET' },
      scope: 'orders:read',
      clientAuth: 'basic',
    });
    expect(problems(oauth.replace('  apiKey:', '  accessToken: { env: T }\n  apiKey:'))).toEqual([
      'venue: set venue.oauth or venue.accessToken, not both',
    ]);
    expect(problems(valid.replace('  accessToken: { file: secrets/token }\n', ''))).toEqual([
      'venue: venue.oauth (client credentials) or venue.accessToken is required: the order endpoints need a bearer token',
    ]);
    expect(
      problems(oauth.replace('clientSecret: { env: DLT_MM_CLIENT_SECRET }', 'clientSecret: s3cr3t')).join('\n'),
    ).toMatch(/venue\.oauth\.clientSecret: a secret must be/);
    const e = thrown(() =>
      checkSecrets(parseBotConfig(oauth, 'bot.yaml'), 'bot.yaml', {
        env: { DLT_MM_API_KEY: 'k', DLT_MM_EVM_KEY: 'x' },
        readFile: () => '',
      }),
    );
    expect(e.details.problems).toEqual([
      'venue.oauth.clientId: environment variable DLT_MM_CLIENT_ID is not set',
      'venue.oauth.clientSecret: environment variable DLT_MM_CLIENT_SECRET is not set',
    ]);
  });
  it('reports YAML syntax errors and duplicate keys', () => {
    expect(problems('venue: [unclosed\n').length).toBeGreaterThan(0);
    expect(problems('telemetry: {}\ntelemetry: {}\n').join('\n')).toMatch(/unique|duplicate/i);
  });
});

describe('secrets', () => {
  const env = { DLT_MM_API_KEY: 'key-1', DLT_MM_EVM_KEY: ' 0x11 ' };
  const files: Record<string, string> = { 'secrets/token': 'token-1\n' };
  const environment = {
    env,
    readFile: (p: string) => {
      const t = files[p];
      if (t === undefined) throw new Error('ENOENT');
      return t;
    },
  };

  it('reads from the environment or a file, trimmed', () => {
    expect(readSecret({ env: 'DLT_MM_EVM_KEY' }, 'k', environment)).toBe('0x11');
    expect(readSecret({ file: 'secrets/token' }, 'k', environment)).toBe('token-1');
  });
  it('reports every unavailable secret without printing any value', () => {
    const c = parseBotConfig(valid, 'bot.yaml');
    const e = thrown(() =>
      checkSecrets(c, 'bot.yaml', {
        env: { DLT_MM_API_KEY: 'key-1' },
        readFile: () => {
          throw new Error('ENOENT');
        },
      }),
    );
    const p = e.details.problems as string[];
    expect(p).toHaveLength(2);
    expect(p.join('\n')).toMatch(/DLT_MM_EVM_KEY is not set/);
    expect(p.join('\n')).toMatch(/secrets\/token cannot be read/);
    expect(e.message).not.toContain('key-1');
    expect(() => checkSecrets(c, 'bot.yaml', environment)).not.toThrow();
  });
});

describe('strategy config', () => {
  it('accepts a ladder and refuses unknown keys and kinds', () => {
    const s = parseStrategyConfig(
      'kind: ladder\nladder: { levels: 2, sizes: ["1"], bidSpreadBps: 10, askSpreadBps: 12 }\n',
      's.yaml',
    );
    expect(s.kind).toBe('ladder');
    expect(() =>
      parseStrategyConfig(
        'kind: ladder\nladder: { sizes: ["1"], bidSpreadBps: 10, askSpreadBps: 12, extra: 1 }\n',
        's.yaml',
      ),
    ).toThrow(/extra/);
    expect(() => parseStrategyConfig('kind: martingale\n', 's.yaml')).toThrow(DltError);
  });

  const ladder = 'kind: ladder\nladder: { levels: 1, sizes: ["1"], bidSpreadBps: 10, askSpreadBps: 10 }\n';

  it('the fair reference needs a fairValue block; the block is read with its defaults', () => {
    expect(() => parseStrategyConfig(`${ladder}referencePrice: [fair, mid]\n`, 's.yaml')).toThrow(
      /fairValue: referencePrice names fair: the fairValue block says where it comes from/,
    );
    const s = parseStrategyConfig(
      `${ladder}referencePrice: [fair, mid]\nfairValue:\n  sources: [{kind: feed, url: 'https://feed.example/{isin}'}, {kind: nav}]\n`,
      's.yaml',
    );
    expect(s.fairValue?.combine).toBe('first');
    expect(s.fairValue?.sources[0]).toMatchObject({ kind: 'feed', pricePath: 'price', pollMs: 1000, maxAgeMs: 10_000 });
    expect(s.fairValue?.guards.onDeviation).toBe('pull');
  });

  it('a kind of source at most once', () => {
    expect(() =>
      parseStrategyConfig(`${ladder}fairValue: {sources: [{kind: nav}, {kind: nav, maxAgeMs: 1}]}\n`, 's.yaml'),
    ).toThrow(/fairValue\.sources: each kind at most once/);
  });

  it('lists every problem of a fairValue block at once', () => {
    const e = thrown(() =>
      parseStrategyConfig(
        `${ladder}fairValue:\n  sources:\n    - {kind: feed, headers: {Authorization: 'inline'}, timeoutMs: 0}\n    - {kind: bond, frequency: 3, yield: {fixed: 'three'}}\n    - {kind: feed}\n  guards: {onDeviation: shrug}\n`,
        's.yaml',
      ),
    );
    const problems = (e.details.problems as string[]).join('\n');
    expect(problems).toMatch(/sources\.0\.timeoutMs/);
    expect(problems).toMatch(/sources\.1\.frequency: must be 1, 2, 4 or 12/);
    expect(problems).toMatch(/sources\.1\.yield/);
    expect(problems).toMatch(/guards\.onDeviation/);
  });
});
