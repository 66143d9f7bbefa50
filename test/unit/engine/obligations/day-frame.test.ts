import { describe, expect, it } from 'vitest';
import { DEFAULT_CALENDAR } from '../../../../src/core/calendar.ts';
import { dayFrame, dayOf } from '../../../../src/engine/obligations/day-frame.ts';

describe('the trading day of an instant', () => {
  it('is the frame of its venue date, asked for again and again, across midnight and calendars', () => {
    const withCalendar = { enabled: true, config: DEFAULT_CALENDAR };
    const alwaysOpen = { enabled: false, config: DEFAULT_CALENDAR };
    // 2026-11-27 (a Friday) in Berlin: UTC+1, so its local midnight is 23:00 UTC the day before.
    const instants = ['2026-11-27T09:00:00Z', '2026-11-27T22:59:59Z', '2026-11-27T23:00:00Z', '2026-11-27T10:00:00Z'];
    for (const calendar of [withCalendar, alwaysOpen, withCalendar])
      for (const at of instants) {
        const date = at === '2026-11-27T23:00:00Z' ? '2026-11-28' : '2026-11-27';
        expect({ at, frame: dayOf(Date.parse(at), calendar) }).toEqual({ at, frame: dayFrame(date, calendar) });
      }
    // A Saturday has no session with the calendar, and the whole day without it.
    expect(dayOf(Date.parse('2026-11-28T12:00:00Z'), withCalendar).schedule).toEqual([]);
    expect(dayOf(Date.parse('2026-11-28T12:00:00Z'), alwaysOpen).schedule).toHaveLength(1);
    // A calendar switched in place (never done, but not trusted either) gets its own frame.
    const switched = { enabled: true, config: DEFAULT_CALENDAR };
    expect(dayOf(Date.parse('2026-11-28T12:00:00Z'), switched).schedule).toEqual([]);
    switched.enabled = false;
    expect(dayOf(Date.parse('2026-11-28T12:00:00Z'), switched).schedule).toHaveLength(1);
  });
});
