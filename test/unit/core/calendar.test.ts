import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CALENDAR,
  isMarketOpen,
  isPhaseOpen,
  isWithinTradingHours,
  msUntilClose,
  nextSession,
  toVenueLocal,
  venueLocalToInstant,
  venueWallMs,
} from '../../../src/core/calendar.ts';

const at = (iso: string) => Date.parse(iso);

describe('trading hours in Europe/Berlin', () => {
  it('opens at 08:00 and closes at 17:00 local time in winter (UTC+1)', () => {
    expect(isWithinTradingHours(at('2026-01-14T06:59:59Z'))).toBe(false);
    expect(isWithinTradingHours(at('2026-01-14T07:00:00Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-01-14T15:59:59Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-01-14T16:00:00Z'))).toBe(false);
  });
  it('opens at 08:00 and closes at 17:00 local time in summer (UTC+2)', () => {
    expect(isWithinTradingHours(at('2026-07-15T05:59:59Z'))).toBe(false);
    expect(isWithinTradingHours(at('2026-07-15T06:00:00Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-07-15T14:59:59Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-07-15T15:00:00Z'))).toBe(false);
  });
  it('switches correctly across the spring change (Sunday 29 March 2026)', () => {
    // Friday before: still winter time.
    expect(isWithinTradingHours(at('2026-03-27T07:00:00Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-03-27T06:30:00Z'))).toBe(false);
    // The switch day itself is a Sunday: closed all day.
    expect(isWithinTradingHours(at('2026-03-29T10:00:00Z'))).toBe(false);
    // Monday after: summer time, 08:00 local is 06:00 UTC.
    expect(isWithinTradingHours(at('2026-03-30T05:59:00Z'))).toBe(false);
    expect(isWithinTradingHours(at('2026-03-30T06:00:00Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-03-30T15:00:00Z'))).toBe(false);
  });
  it('switches correctly across the autumn change (Sunday 25 October 2026)', () => {
    expect(isWithinTradingHours(at('2026-10-23T06:00:00Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-10-23T15:00:00Z'))).toBe(false);
    expect(isWithinTradingHours(at('2026-10-25T09:00:00Z'))).toBe(false);
    expect(isWithinTradingHours(at('2026-10-26T06:30:00Z'))).toBe(false);
    expect(isWithinTradingHours(at('2026-10-26T07:00:00Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-10-26T15:59:00Z'))).toBe(true);
    expect(isWithinTradingHours(at('2026-10-26T16:00:00Z'))).toBe(false);
  });
  it('maps local times to instants on switch days, including the repeated autumn hour and the skipped spring hour', () => {
    expect(new Date(venueLocalToInstant('2026-03-29', 8 * 60)).toISOString()).toBe('2026-03-29T06:00:00.000Z');
    expect(new Date(venueLocalToInstant('2026-03-29', 1 * 60)).toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(new Date(venueLocalToInstant('2026-10-25', 2 * 60 + 30)).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(new Date(venueLocalToInstant('2026-10-25', 8 * 60)).toISOString()).toBe('2026-10-25T07:00:00.000Z');
    const gap = venueLocalToInstant('2026-03-29', 2 * 60 + 30);
    expect(toVenueLocal(gap).minutes).toBe(3 * 60 + 30);
  });
  it('is closed on weekends and configured holidays', () => {
    const calendar = { ...DEFAULT_CALENDAR, holidays: ['2026-12-24', '2026-12-25'] };
    expect(isWithinTradingHours(at('2026-11-21T10:00:00Z'), calendar)).toBe(false); // Saturday
    expect(isWithinTradingHours(at('2026-11-22T10:00:00Z'), calendar)).toBe(false); // Sunday
    expect(isWithinTradingHours(at('2026-12-24T10:00:00Z'), calendar)).toBe(false);
    expect(isWithinTradingHours(at('2026-12-23T10:00:00Z'), calendar)).toBe(true);
  });
  it('finds the running or next session with its clearing time', () => {
    const calendar = { ...DEFAULT_CALENDAR, holidays: ['2026-12-24', '2026-12-25'] };
    const s = nextSession(at('2026-12-23T17:00:00Z'), calendar);
    expect(s.date).toBe('2026-12-28');
    expect(new Date(s.openMs).toISOString()).toBe('2026-12-28T07:00:00.000Z');
    expect(new Date(s.clearingMs).toISOString()).toBe('2026-12-28T16:05:00.000Z');
    expect(nextSession(at('2026-12-23T10:00:00Z'), calendar).date).toBe('2026-12-23');
    expect(msUntilClose(at('2026-12-23T15:00:00Z'), calendar)).toBe(3_600_000);
    expect(msUntilClose(at('2026-12-23T17:00:00Z'), calendar)).toBeNull();
  });
});

describe('market open', () => {
  const open = at('2026-07-15T10:00:00Z');
  it('needs tradingStatus CONTINUOUS_TRADING exactly and the open phase of the chain', () => {
    expect(isMarketOpen({ nowMs: open, tradingStatus: 'CONTINUOUS_TRADING', chain: 'evm', phase: 1 })).toBe(true);
    expect(
      isMarketOpen({ nowMs: open, tradingStatus: 'CONTINUOUS_TRADING', chain: 'wasm', phase: 'OpenForTrading' }),
    ).toBe(true);
    for (const status of [
      'continuous_trading',
      'CONTINUOUS_TRADING ',
      'OUT_OF_TRADING',
      'AUTOMATIC_TRADING_HALT',
      '',
      null,
      undefined,
    ]) {
      expect(isMarketOpen({ nowMs: open, tradingStatus: status, chain: 'evm', phase: 1 })).toBe(false);
    }
  });
  it('treats any other phase value as closed', () => {
    for (const phase of [0, 2, 3, 4, '1', 'OpenForTrading', null]) expect(isPhaseOpen('evm', phase)).toBe(false);
    for (const phase of ['openForTrading', 'ClosedForTrading', 'AutomaticHalt', 1, null])
      expect(isPhaseOpen('wasm', phase)).toBe(false);
  });
  it('is closed outside trading hours unless the calendar is disabled', () => {
    const night = at('2026-07-15T22:00:00Z');
    expect(isMarketOpen({ nowMs: night, tradingStatus: 'CONTINUOUS_TRADING', chain: 'evm', phase: 1 })).toBe(false);
    expect(
      isMarketOpen({ nowMs: night, tradingStatus: 'CONTINUOUS_TRADING', chain: 'evm', phase: 1, useCalendar: false }),
    ).toBe(true);
  });
});

describe('the venue wall clock as UTC milliseconds', () => {
  it('reads an instant as Berlin shows it, winter and summer, seconds and milliseconds kept', () => {
    expect(new Date(venueWallMs(at('2026-03-02T08:59:58.250Z'))).toISOString()).toBe('2026-03-02T09:59:58.250Z');
    expect(new Date(venueWallMs(at('2026-07-01T22:30:00.000Z'))).toISOString()).toBe('2026-07-02T00:30:00.000Z');
  });
});
