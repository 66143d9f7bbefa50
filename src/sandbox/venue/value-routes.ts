/**
 * The control endpoints of the true values: `GET /sandbox/feeds/{symbol}` (a pair's price feed, by symbol or
 * id), `GET /sandbox/values[?at=<unix ms>]` (every pair's true value now, or as sampled at a past wall-clock
 * moment of the last hour), and the faults of the feeds (`POST /sandbox/faults/feed {mode: down|stale,
 * pair?}`, cleared by its `DELETE`).
 */
import { z } from 'zod';
import type { ControlRequest } from '../api/http-server.ts';
import { badRequest, HttpError, notFound } from '../api/http-error.ts';
import { pathSegment } from '../api/query.ts';
import type { VenueState } from '../api/venue-state.ts';
import type { ValueParts } from './value-setup.ts';

export interface ValueControl {
  readonly state: VenueState;
  readonly value: ValueParts;
}

export const feedFaultSchema = z.strictObject({
  mode: z.enum(['down', 'stale']),
  pair: z.string().min(1).optional(),
});

/** The pair id of an id or a symbol; 404 when there is none. */
export function pairIdOf(state: VenueState, idOrSymbol: string): string {
  const p = state.pairByIdOrSymbol(pathSegment(idOrSymbol, 'pair'));
  if (p === undefined) throw notFound(`No pair ${idOrSymbol}`);
  return p.id;
}

/** `GET /sandbox/feeds/{symbol}`: the feed's document, or 503 while it is down. */
export function feedDocument(t: ValueControl, symbol: string): unknown {
  const id = pairIdOf(t.state, symbol);
  const doc = t.value.feeds.document(id);
  if (doc === null) throw new HttpError(503, `price feed ${symbol} is down`);
  return doc;
}

/** `GET /sandbox/values[?at=<unix ms>]`. */
export function trueValues(t: ValueControl, req: ControlRequest): unknown {
  const at = req.params.get('at');
  if (at === null) return { wallMs: Date.now(), sandboxMs: t.value.values.nowMs(), pairs: t.value.describe() };
  if (!/^[0-9]{1,16}$/.test(at)) throw badRequest('at is unix milliseconds of wall time');
  const wallMs = Number(at);
  const pairs = Object.fromEntries(
    t.value.values.pairIds.flatMap((id) => {
      const s = t.value.values.at(id, wallMs);
      if (s === undefined) return [];
      const y = s.yieldPercent;
      const entry = {
        value: s.value.toDecimalPlaces(10).toFixed(),
        ...(y === null ? {} : { yield: y.toDecimalPlaces(8).toFixed() }),
        wallMs: s.wallMs,
        sandboxMs: s.sandboxMs,
      };
      return [[id, entry]];
    }),
  );
  if (Object.keys(pairs).length === 0) throw notFound(`No sample at or before ${wallMs} is kept`);
  return { wallMs, pairs };
}

/** Sets a feed fault on one pair's feed or on all of them. */
export function setFeedFault(t: ValueControl, spec: z.infer<typeof feedFaultSchema>): void {
  t.value.feeds.setFault(spec.mode, spec.pair === undefined ? undefined : pairIdOf(t.state, spec.pair));
}

/** The faults of the feeds, for the fault list. */
export function valueFaults(t: ValueControl): { feeds: Record<string, string> } {
  return { feeds: t.value.feeds.faults() };
}

/** Clears the feed faults. */
export function clearValueFaults(t: ValueControl): void {
  t.value.feeds.clearFaults();
}
