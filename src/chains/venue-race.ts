/**
 * Outcomes that are the venue's races, not failures of ours: a cancellation that finds its order already gone
 * (a fill or a cancellation reached the book first, in the same block or ledger or one whose events have not
 * arrived yet). They are logged as one info line; everything else the venue refuses is a warning. Venue
 * errors are logged by code and message: their stack says nothing about the venue.
 */
import type { DltError } from '../core/errors.ts';

export function isVenueRace(kind: string, error: DltError): boolean {
  return kind === 'cancel' && error.code === 'E_VENUE_ORDER_NOT_FOUND';
}

/** The log fields of a venue or chain error (the context of the command is logged beside them). */
export function errorFields(error: DltError): { code: string; reason: string } {
  return { code: error.code, reason: error.message };
}
