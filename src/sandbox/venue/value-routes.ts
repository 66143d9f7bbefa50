/**
 * The control endpoints of the true values: `GET /sandbox/feeds/{symbol}` (a pair's price feed, by symbol or
 * id), `GET /sandbox/values[?at=<unix ms>]` (every pair's true value now, or as sampled at a past wall-clock
 * moment of the last hour), and the faults of the feeds (`POST /sandbox/faults/feed {mode: down|stale,
 * pair?}`) and of the oracles (`POST /sandbox/faults/oracle {mode: freeze|jump, bps?, pair?}`), each cleared
 * by its `DELETE`.
 */
import { z } from 'zod';
import type { ControlRequest } from '../api/http-server.ts';
import { badRequest, HttpError, notFound } from '../api/http-error.ts';
import { pathSegment } from '../api/query.ts';
import type { VenueState } from '../api/venue-state.ts';
import type { SandboxOracles } from './oracle-setup.ts';
import type { ValueParts } from './value-setup.ts';

export interface ValueControl {
  readonly state: VenueState;
  readonly value: ValueParts;
  readonly oracles: SandboxOracles;
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

export const oracleFaultSchema = z
  .strictObject({
    mode: z.enum(['freeze', 'jump']),
    bps: z.number().int().min(-9_999).max(100_000).optional(),
    pair: z.string().min(1).optional(),
  })
  .refine((f) => f.mode !== 'jump' || (f.bps !== undefined && f.bps !== 0), {
    message: 'a jump needs bps, a whole number of basis points other than 0',
    path: ['bps'],
  });

/** Freezes an oracle (or all), or publishes a jumped answer at once; answers what was published. */
export async function setOracleFault(t: ValueControl, spec: z.infer<typeof oracleFaultSchema>): Promise<unknown> {
  const pairId = spec.pair === undefined ? undefined : pairIdOf(t.state, spec.pair);
  if (spec.mode === 'freeze') {
    await t.oracles.freeze(pairId);
    return [];
  }
  const published = await t.oracles.jump(spec.bps as number, pairId);
  return published.map((u) => ({ pair: u.id, answer: u.answer.toString(), reason: u.reason }));
}

/** The faults of the feeds and the oracles, for the fault list. */
export function valueFaults(t: ValueControl): { feeds: Record<string, string>; oraclesFrozen: string[] } {
  return {
    feeds: t.value.feeds.faults(),
    oraclesFrozen: t.oracles
      .state()
      .filter((f) => f.frozen)
      .map((f) => f.id),
  };
}

/** Clears the feed faults and unfreezes every oracle (a jumped answer is corrected by the next round). */
export function clearValueFaults(t: ValueControl): void {
  t.value.feeds.clearFaults();
  t.oracles.unfreeze();
}
