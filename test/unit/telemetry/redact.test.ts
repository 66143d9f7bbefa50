import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import { DltError } from '../../../src/core/errors.ts';
import { isSecretKey, REDACTED, redactSecrets, redactText } from '../../../src/telemetry/redact.ts';

const SECRET = 'S3cr3t-value-42';

describe('secret redaction', () => {
  it('replaces every secret-named key, whatever its case or separator, at any depth', () => {
    const input = {
      privateKey: SECRET,
      wallet: { secret: SECRET, seed: SECRET, nested: [{ apiKey: SECRET }, { deeper: { 'x-api-key': SECRET } }] },
      headers: { Authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
      session: { accessToken: SECRET, token: SECRET, password: SECRET, client_secret: SECRET, API_KEY: SECRET },
      keep: { symbol: 'BOND26', quoteToken: '0xabc', amount: '12.5' },
    };
    const out = redactSecrets(input);
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(out).toEqual({
      privateKey: REDACTED,
      wallet: {
        secret: REDACTED,
        seed: REDACTED,
        nested: [{ apiKey: REDACTED }, { deeper: { 'x-api-key': REDACTED } }],
      },
      headers: { Authorization: REDACTED, 'content-type': 'application/json' },
      session: {
        accessToken: REDACTED,
        token: REDACTED,
        password: REDACTED,
        client_secret: REDACTED,
        API_KEY: REDACTED,
      },
      keep: { symbol: 'BOND26', quoteToken: '0xabc', amount: '12.5' },
    });
  });

  it('names the secret keys of the brief and leaves ordinary keys such as token addresses alone', () => {
    const secret = [
      'privateKey',
      'secret',
      'seed',
      'apiKey',
      'x-api-key',
      'authorization',
      'accessToken',
      'token',
      'password',
    ];
    const plain = [
      'quoteToken',
      'baseTokenData',
      'smartContractQuote',
      'symbol',
      'keys',
      'status',
      'tokenSymbol',
      'tokens',
      'tokenRole',
      'authorized',
      'seeded',
      'secretary',
      'passwordPolicy',
    ];
    expect(secret.filter((k) => !isSecretKey(k))).toEqual([]);
    expect(plain.filter((k) => isSecretKey(k))).toEqual([]);
  });

  it('keeps ordinary data whose key only resembles a secret name: a report of tokens is logged whole', () => {
    const report = {
      inventory: {
        comparable: true,
        tokens: [{ token: '0x0B20783f64E10472Ff710839257d834194E2c849', onChain: '10', difference: '0' }],
      },
    };
    expect(redactSecrets(report)).toEqual(report);
  });

  it('strips credentials from URLs and secret query parameters inside any string', () => {
    expect(redactText('https://user:pass@venue.example/api/v1')).toBe('https://***@venue.example/api/v1');
    expect(redactText('wss://p@ss:w@rd@host:443/ws')).toBe('wss://***@host:443/ws');
    expect(redactText('GET https://h/x?apikey=abc&limit=5&access_token=def#f')).toBe(
      'GET https://h/x?apikey=***&limit=5&access_token=***#f',
    );
    expect(redactText('sent Authorization: Bearer eyJ.abc-def')).toBe('sent Authorization: Bearer ***');
    expect(redactSecrets({ url: 'http://u:p@127.0.0.1:9/x?x-api-key=zzz' })).toEqual({
      url: 'http://***@127.0.0.1:9/x?x-api-key=***',
    });
  });

  it('turns errors into plain objects with redacted message, stack, fields and cause', () => {
    const cause = new Error(`connect https://bob:${SECRET}@host failed`);
    const error = new DltError('E_CONFIG_SECRET', `bad token ?token=${SECRET}`, {
      details: { apiKey: SECRET, where: 'venue' },
      cause,
    });
    const out = redactSecrets({ err: error }) as { err: Record<string, unknown> };
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(out.err).toMatchObject({
      type: 'DltError',
      code: 'E_CONFIG_SECRET',
      details: { apiKey: REDACTED, where: 'venue' },
    });
    expect((out.err.cause as { message: string }).message).toBe('connect https://***@host failed');
  });

  it('copies instead of mutating, and survives cycles, bigints and value objects', () => {
    const input: Record<string, unknown> = {
      token: SECRET,
      n: 2n ** 70n,
      price: new Decimal('0.1'),
      when: new Date(0),
    };
    input.self = input;
    const out = redactSecrets(input) as Record<string, unknown>;
    expect(input.token).toBe(SECRET);
    expect(out).toEqual({
      token: REDACTED,
      n: '1180591620717411303424',
      price: '0.1',
      when: '1970-01-01T00:00:00.000Z',
      self: '[Circular]',
    });
  });

  it('never lets a value under a secret key through, wherever the key sits (property)', () => {
    const secretKeys = fc.constantFrom(
      'privateKey',
      'SECRET',
      'seed',
      'apiKey',
      'x-api-key',
      'authorization',
      'accessToken',
      'token',
      'password',
    );
    const plainKey = fc.stringMatching(/^[a-z]{1,6}$/).filter((k) => !isSecretKey(k));
    const secretValue = fc.stringMatching(/^ZZ[a-z0-9]{8}$/);
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constant('plain'),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(plainKey, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(tree, fc.array(plainKey, { maxLength: 6 }), secretKeys, secretValue, (base, path, key, value) => {
        // Plant {key: value} at `path` inside a random tree.
        const root: Record<string, unknown> = { base };
        let cursor = root;
        for (const p of path) cursor = (cursor[p] = {}) as Record<string, unknown>;
        cursor[key] = value;
        expect(JSON.stringify(redactSecrets(root))).not.toContain(value);
      }),
    );
  });
  it('shows a token contract address under the key token, and still hides any other value there', () => {
    const evm = '0x2f71268dD0d0E9d119fc90E4E8Aab03528Dd05BF';
    const wasm = 'CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC';
    expect(redactSecrets({ token: evm, nested: { token: wasm } })).toEqual({ token: evm, nested: { token: wasm } });
    expect(redactSecrets({ token: 'eyJhbGciOiJIUzI1NiJ9.abc.def' })).toEqual({ token: REDACTED });
    expect(redactSecrets({ token: `0x${'ab'.repeat(32)}` })).toEqual({ token: REDACTED });
    expect(redactSecrets({ token: 'SAV76USXIJOBMEQXPANUOQM6F5LIOTLPDIDVRJBFFE2MDJXG24TAPUU7' })).toEqual({
      token: REDACTED,
    });
    expect(redactSecrets({ accessToken: evm })).toEqual({ accessToken: REDACTED });
  });
});
