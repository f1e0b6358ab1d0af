import { describe, expect, it } from 'vitest';
import { openStatus } from '../../src/domain/opening-hours.js';
import type { WeeklyHours } from '../../src/domain/store-info.js';

const week = (open: string, close: string, closedSunday = true): WeeklyHours =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
      day,
      day === 'sunday' && closedSunday
        ? { open: null, close: null, closed: true }
        : { open, close, closed: false },
    ]),
  ) as WeeklyHours;

describe('openStatus, in the store’s time zone', () => {
  // Wednesday 2026-11-25 17:30 UTC is 09:30 in Los Angeles (PST, UTC-8) and 18:30 in Berlin.
  const at = new Date('2026-11-25T17:30:00Z');

  it('open or closed by the local time, not the server’s', () => {
    expect(openStatus(week('09:00', '21:00'), 'America/Los_Angeles', at)).toEqual({
      open: true,
      label: 'Open now · closes 21:00',
    });
    expect(openStatus(week('10:00', '18:00'), 'Europe/Berlin', at)).toEqual({
      open: false,
      label: 'Closed · opens tomorrow 10:00',
    });
    expect(openStatus(week('10:00', '18:00'), 'America/Los_Angeles', at)).toEqual({
      open: false,
      label: 'Closed · opens 10:00',
    });
  });

  it('a close before the open runs past midnight, into the next day', () => {
    // Thursday 01:00 in Los Angeles: still Wednesday's evening opening (18:00 to 02:00).
    const night = new Date('2026-11-26T09:00:00Z');
    expect(openStatus(week('18:00', '02:00'), 'America/Los_Angeles', night)).toEqual({
      open: true,
      label: 'Open now · closes 02:00',
    });
  });

  it('skips closed days to the next opening; unknown hours say so', () => {
    // Saturday 22:00 in Los Angeles; Sunday closed: opens Monday.
    const saturday = new Date('2026-11-29T06:00:00Z');
    expect(openStatus(week('09:00', '21:00'), 'America/Los_Angeles', saturday).label).toBe(
      'Closed · opens Monday 09:00',
    );
    expect(openStatus(null, 'America/Los_Angeles', at)).toEqual({ open: null, label: 'Hours not listed' });
    // No time zone: UTC.
    expect(openStatus(week('17:00', '18:00'), null, at).open).toBe(true);
  });
});
