/** Incidents: a repeating failure is said when it starts, reminded while it lasts, and ended with its count. */
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { DltError } from '../../../src/core/errors.ts';
import { failureFields, incidentsOf, reportedRound } from '../../../src/telemetry/incidents.ts';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [k: string]: unknown;
}

function logged(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  return { logger, lines };
}

const rpcDown = new DltError('E_CHAIN_RPC', 'request to node failed: HTTP 503');

describe('incidents', () => {
  it('says a failure once when it starts, reminds while it lasts and ends once after the quiet time', () => {
    const { logger, lines } = logged();
    const incidents = incidentsOf(logger, { quietMs: 10_000, remindMs: 60_000 });
    for (let t = 0; t < 30_000; t += 1_000) incidents.failed('chain A node', t, 'follower round', rpcDown);
    incidents.failed('chain A node', 30_000, 'receipt poll', rpcDown);
    expect(lines.map((l) => l.msg)).toEqual(['chain A node failing']);
    expect(lines[0]).toMatchObject({ incident: 'chain A node', what: 'follower round', code: 'E_CHAIN_RPC' });

    incidents.failed('chain A node', 61_000, 'follower round', rpcDown);
    expect(lines.at(-1)).toMatchObject({ msg: 'chain A node still failing', failures: 32, forMs: 61_000 });

    incidents.succeeded('chain A node', 70_000);
    expect(lines).toHaveLength(2);
    incidents.succeeded('chain A node', 71_000);
    expect(lines.at(-1)).toMatchObject({
      msg: 'chain A node working again',
      failures: 32,
      forMs: 61_000,
      by: { 'follower round': 31, 'receipt poll': 1 },
    });
    expect(incidents.count('chain A node')).toBe(0);
  });

  it('keeps an intermittent failure one incident: a success within the quiet time does not end it', () => {
    const { logger, lines } = logged();
    const incidents = incidentsOf(logger, { quietMs: 10_000 });
    for (let t = 0; t < 25_000; t += 1_000)
      if (t % 2_000 === 0) incidents.failed('venue REST', t, 'tradeinfo', rpcDown);
      else incidents.succeeded('venue REST', t);
    expect(lines.map((l) => l.msg)).toEqual(['venue REST failing']);
    incidents.succeeded('venue REST', 34_000);
    expect(lines.map((l) => l.msg)).toEqual(['venue REST failing', 'venue REST working again']);
  });

  it('is one registry for every child of a root logger, and separate for another root', () => {
    const a = logged();
    const b = logged();
    incidentsOf(a.logger.child({ component: 'follower' })).failed('chain B node', 0, 'follower round', rpcDown);
    incidentsOf(a.logger.child({ component: 'sender' })).failed('chain B node', 1, 'send', rpcDown);
    incidentsOf(b.logger).failed('chain B node', 2, 'follower round', rpcDown);
    expect([a.lines.length, b.lines.length, incidentsOf(a.logger).count('chain B node')]).toEqual([1, 1, 2]);
    expect(a.lines[0]).toMatchObject({ component: 'follower' });
  });

  it('ends an incident at once when the thing says once that it worked', () => {
    const { logger, lines } = logged();
    const incidents = incidentsOf(logger);
    incidents.failed('evm wallet reconciliation', 0, 'failed', rpcDown);
    incidents.ended('evm wallet reconciliation');
    expect(lines.map((l) => l.msg)).toEqual([
      'evm wallet reconciliation failing',
      'evm wallet reconciliation working again',
    ]);
  });

  it('reports a poll round: its failure opens the incident, later successes end it', async () => {
    const { logger, lines } = logged();
    let now = 0;
    const clock = { now: () => now };
    await reportedRound(logger, clock, 'chain B node', 'follower round', () => Promise.reject(rpcDown));
    now = 20_000;
    await reportedRound(logger, clock, 'chain B node', 'follower round', () => Promise.resolve());
    expect(lines.map((l) => l.msg)).toEqual(['chain B node failing', 'chain B node working again']);
  });
});

describe('failureFields', () => {
  it('gives typed and coded transport errors by code and reason, without a stack', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const fetchFailed = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    expect([failureFields(rpcDown), failureFields(reset), failureFields(fetchFailed)]).toEqual([
      { code: 'E_CHAIN_RPC', reason: 'request to node failed: HTTP 503' },
      { code: 'ECONNRESET', reason: 'read ECONNRESET' },
      { code: 'FETCH_FAILED', reason: 'connect ECONNREFUSED 127.0.0.1:1' },
    ]);
  });

  it('keeps an error nobody expected whole, stack included', () => {
    const bug = new RangeError('index out of range');
    expect(failureFields(bug)).toEqual({ err: bug });
  });
});
