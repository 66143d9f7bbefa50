/**
 * The venue transports under a running bot, in the sandbox's fast mode: tokens expiring every 2 s (renewed
 * ahead of expiry, and once revoked outright so that a 401 forces one renewal and one retry), the
 * AppSync-style WebSocket sending keep-alives every 500 ms, the simulated market trading. Every participant
 * call succeeds, and every pair's book is fed by the WebSocket, never by the REST fallback. The 5-minute
 * form of the same run is `npm run soak:transports`.
 */
import { describe, expect, it, onTestFailed } from 'vitest';
import { formatReport, runTransportSoak } from '../soak/transports.ts';

describe('transports during a bot run', () => {
  it(
    'renews expiring tokens across their expiry and after a revocation, while every book is fed by the WebSocket',
    { timeout: 240_000 },
    async () => {
      const report = await runTransportSoak({
        tokenLifetimeSeconds: 2,
        keepAliveMs: 500,
        connectionTimeoutMs: 5_000,
        participantCallMs: 250,
        revokeAtMs: 5_000,
        stop: {
          when: (p) => p.elapsedMs >= 12_000 && p.tokensIssued >= 6 && p.participantCalls.ok >= 40,
          deadlineMs: 120_000,
        },
      });
      onTestFailed(() => console.log(formatReport(report)));
      // Participant calls across at least five expiries and a revocation: none left failing.
      expect([report.participantCalls.failed, report.failedCalls]).toEqual([0, {}]);
      expect(report.tokens.issuedBySandbox).toBeGreaterThanOrEqual(6);
      expect(report.tokens.requested).toEqual({ ok: report.tokens.issuedBySandbox });
      // The revocation was met by 401s, each renewed and retried.
      expect(Object.values(report.unauthorized).reduce((a, n) => a + n, 0)).toBeGreaterThanOrEqual(1);
      // Keep-alives flowed; the connection never had to be reopened; no market went stale.
      expect(report.websocket.keepAlivesReceived).toBeGreaterThanOrEqual(10);
      expect([
        report.websocket.reconnects,
        report.websocket.keepAliveTimeouts,
        report.websocket.staleTransitions,
      ]).toEqual([0, 0, 0]);
      // Never on the REST fallback; the first data arrives right after the subscription, the rest is WebSocket-fed.
      expect(
        report.pairs
          .map((p) => ({ market: p.market, rest: p.rest, wsShareAtLeast95: p.wsShare >= 0.95 }))
          .toSorted((a, b) => a.market.localeCompare(b.market)),
      ).toEqual(
        ['BOND26EURe', 'FUND1EURe', 'GRN27EURe', 'XBOND26EURe'].map((market) => ({
          market,
          rest: 0,
          wsShareAtLeast95: true,
        })),
      );
    },
  );
});
