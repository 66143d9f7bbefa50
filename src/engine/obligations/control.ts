/**
 * The obligation control endpoint on the bot's telemetry server, for the operator (and `dlt-mm obligations`
 * while the bot runs). Loopback callers only: it changes what the bot reports to the venue.
 *
 *   GET  /obligations                    every pair's snapshot and today's declared windows
 *   POST /obligations/windows            {kind: exception|stressed, reason, pair?, from?, to?} declares a window
 *   POST /obligations/windows/<id>/end   {at?} ends a window (now by default)
 *
 * Times are ISO 8601 (`2026-03-02T10:15:00Z`); `from` defaults to now, `to` to open-ended.
 */
import type { ObligationTracker } from './tracker.ts';
import type { Clock } from '../../core/clock.ts';

export interface ControlRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly remoteAddress: string | undefined;
}

export interface ControlAnswer {
  readonly status: number;
  readonly body: unknown;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

class BadRequest extends Error {}

function time(v: unknown, field: string, fallback: number | null): number | null {
  if (v === undefined || v === null) return fallback;
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(t)) throw new BadRequest(`${field}: expected an ISO 8601 time like 2026-03-02T10:15:00Z`);
  return t;
}

export function obligationRoutes(
  tracker: ObligationTracker,
  clock: Pick<Clock, 'now'>,
): (req: ControlRequest) => ControlAnswer | null {
  return (req) => {
    if (req.path !== '/obligations' && !req.path.startsWith('/obligations/')) return null;
    if (!LOOPBACK.has(req.remoteAddress ?? ''))
      return { status: 403, body: { error: 'the obligation endpoint answers loopback callers only' } };
    try {
      if (req.method === 'GET' && req.path === '/obligations')
        return { status: 200, body: { snapshots: tracker.snapshots(), windows: tracker.windows() } };
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('expected a JSON object');
      if (req.method === 'POST' && req.path === '/obligations/windows') {
        const kind = body.kind ?? 'exception';
        if (kind !== 'exception' && kind !== 'stressed') throw new BadRequest('kind: exception or stressed');
        if (typeof body.reason !== 'string' || body.reason.trim() === '')
          throw new BadRequest('reason: required, the circumstances in words');
        const pair = body.pair === undefined || body.pair === null ? null : String(body.pair);
        if (pair !== null && !tracker.pairIds.includes(pair))
          throw new BadRequest(`pair: no traded pair ${pair} (traded: ${tracker.pairIds.join(', ')})`);
        const fromMs = time(body.from, 'from', clock.now()) as number;
        const toMs = time(body.to, 'to', null);
        if (toMs !== null && toMs <= fromMs) throw new BadRequest('to: must be after from');
        return {
          status: 201,
          body: tracker.declare({ kind, pairId: pair, fromMs, toMs, reason: body.reason.trim(), source: 'endpoint' }),
        };
      }
      const end = /^\/obligations\/windows\/(\d+)\/end$/.exec(req.path);
      if (req.method === 'POST' && end !== null) {
        const ended = tracker.endWindow(Number(end[1]), time(body.at, 'at', clock.now()) as number);
        return ended === null ? { status: 404, body: { error: `no window ${end[1]}` } } : { status: 200, body: ended };
      }
      return { status: 404, body: { error: 'not found' } };
    } catch (e) {
      if (e instanceof BadRequest) return { status: 400, body: { error: e.message } };
      throw e;
    }
  };
}
