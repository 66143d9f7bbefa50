import { describe, expect, it } from 'vitest';
import { DltError } from '../../../src/core/errors.ts';
import { formatHumanLine } from '../../../src/telemetry/human-format.ts';
import { createLogger } from '../../../src/telemetry/logger.ts';

const SECRET = 'tok-9f8e7d6c5b4a';

function capture(format: 'json' | 'human' = 'json') {
  const lines: string[] = [];
  const logger = createLogger({
    destination: { write: (l: string) => void lines.push(l) },
    now: () => Date.UTC(2026, 2, 2, 9, 30),
    format,
    name: 'mm',
  });
  return { logger, lines };
}

describe('logger', () => {
  it('writes one JSON object per line with ISO time, level label and name', () => {
    const { logger, lines } = capture();
    logger.info({ market: 'BOND26EURe', price: '101.2' }, 'book updated');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toEqual({
      level: 'info',
      time: '2026-03-02T09:30:00.000Z',
      name: 'mm',
      market: 'BOND26EURe',
      price: '101.2',
      msg: 'book updated',
    });
  });

  it('redacts secrets in logged objects, child bindings, messages, interpolations and errors', () => {
    const { logger, lines } = capture();
    const child = logger.child({ component: 'venue', apiKey: SECRET });
    child.warn(
      { request: { headers: { authorization: `Bearer ${SECRET}` }, config: { wallets: [{ privateKey: SECRET }] } } },
      'calling',
    );
    child.info(`connecting to https://ops:${SECRET}@venue.example/api/v1`);
    child.info('retrying %s', `wss://h/ws?apikey=${SECRET}`);
    child.error(new DltError('E_CONFIG_SECRET', `refused ?token=${SECRET}`, { details: { token: SECRET } }));
    child.error({ err: new Error(`fetch https://u:${SECRET}@h failed`) }, 'rest failed');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).not.toContain(SECRET);
    const first = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(first).toMatchObject({
      component: 'venue',
      apiKey: '[REDACTED]',
      request: { headers: { authorization: '[REDACTED]' } },
    });
    expect(JSON.parse(lines[1] as string).msg).toBe('connecting to https://***@venue.example/api/v1');
    expect(JSON.parse(lines[2] as string).msg).toBe('retrying wss://h/ws?apikey=***');
    expect(JSON.parse(lines[3] as string).err).toMatchObject({
      code: 'E_CONFIG_SECRET',
      details: { token: '[REDACTED]' },
    });
  });

  it('scrubs known secret values even from free text no pattern recognises', () => {
    const lines: string[] = [];
    const logger = createLogger({
      destination: { write: (l: string) => void lines.push(l) },
      knownSecrets: [SECRET, 'abc'],
    });
    logger.error(new Error(`venue said: key ${SECRET} unknown`));
    logger.info({ note: `"${SECRET}"` }, 'abc stays: short values are not scrubbed');
    expect(lines.join('')).not.toContain(SECRET);
    expect(JSON.parse(lines[0] as string).msg).toBe('venue said: key *** unknown');
    expect(JSON.parse(lines[1] as string).msg).toBe('abc stays: short values are not scrubbed');
  });

  it('the human format prints a short line from the already-redacted entry', () => {
    const { logger, lines } = capture('human');
    logger.warn({ market: 'BOND26EURe', token: SECRET, note: 'two words' }, 'stale');
    expect(lines).toEqual(['09:30:00.000 WARN  mm: stale market=BOND26EURe token=[REDACTED] note="two words"\n']);
    expect(formatHumanLine('not json\n')).toBe('not json\n');
  });

  it('honours the level', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (l: string) => void lines.push(l) } });
    logger.info('hidden');
    logger.warn('shown');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['shown']);
  });
});
