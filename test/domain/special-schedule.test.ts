import { describe, expect, it } from 'vitest';
import { activeUntil, isActiveAt, nextBoundary, periodsBetween } from '../../src/domain/special-schedule.js';
import type { SpecialSchedule } from '../../src/domain/special-schema.js';

const NY = 'America/New_York';
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null | undefined) => (typeof ms === 'number' ? new Date(ms).toISOString() : ms);

const schedule = (fields: Partial<SpecialSchedule>): SpecialSchedule => ({
  startsAt: null,
  endsAt: null,
  daysOfWeek: null,
  dailyStart: null,
  dailyEnd: null,
  ...fields,
});

/** Every instant in [from, to) at which the special starts or stops, walked with nextBoundary. */
function boundaries(s: SpecialSchedule, zone: string | null, from: string, to: string): string[] {
  const found: string[] = [];
  let t = at(from);
  for (;;) {
    const next = nextBoundary(s, zone, t);
    if (next === null || next >= at(to)) return found;
    found.push(iso(next)!);
    t = next;
  }
}

/** The boundaries in the first twelve hours (UTC) of `day` in New York: the night its clocks may change. */
const night = (s: SpecialSchedule, day: string) => boundaries(s, NY, `${day}T00:00:00Z`, `${day}T12:00:00Z`);

describe('a special’s schedule, in the store’s time zone', () => {
  it('applies between its dates: from starts_at, until (not at) ends_at', () => {
    const s = schedule({ startsAt: '2026-05-01T00:00:00.000Z', endsAt: '2026-05-02T00:00:00.000Z' });
    // Just before starts_at, at it, just before ends_at, at it.
    const instants = ['2026-04-30T23:59:59.999Z', s.startsAt!, '2026-05-01T23:59:59.999Z', s.endsAt!];
    expect(instants.map((instant) => isActiveAt(s, NY, at(instant)))).toEqual([false, true, true, false]);
    expect(boundaries(s, NY, '2026-04-01T00:00:00Z', '2026-06-01T00:00:00Z')).toEqual([
      '2026-05-01T00:00:00.000Z',
      '2026-05-02T00:00:00.000Z',
    ]);
    expect(nextBoundary(s, NY, at('2026-05-02T00:00:00.000Z'))).toBeNull();
  });

  it('reads a daily window in local time: 16:00–18:00 in New York is 20:00–22:00 UTC in summer', () => {
    const s = schedule({ dailyStart: '16:00', dailyEnd: '18:00' });
    expect(isActiveAt(s, NY, at('2026-07-01T19:59:00Z'))).toBe(false);
    expect(isActiveAt(s, NY, at('2026-07-01T20:00:00Z'))).toBe(true);
    expect(isActiveAt(s, NY, at('2026-07-01T22:00:00Z'))).toBe(false);
    // And 21:00–23:00 UTC in winter; UTC itself when the store has no zone.
    expect(isActiveAt(s, NY, at('2026-01-05T21:30:00Z'))).toBe(true);
    expect(isActiveAt(s, null, at('2026-01-05T16:30:00Z'))).toBe(true);
  });

  it('runs a window past midnight into the next day, on the days it starts', () => {
    // Fridays 22:00 to 02:00: 2026-07-03 is a Friday.
    const s = schedule({ daysOfWeek: ['friday'], dailyStart: '22:00', dailyEnd: '02:00' });
    expect(isActiveAt(s, NY, at('2026-07-04T03:00:00Z'))).toBe(true); // Fri 23:00
    expect(isActiveAt(s, NY, at('2026-07-04T05:00:00Z'))).toBe(true); // Sat 01:00
    expect(isActiveAt(s, NY, at('2026-07-05T03:00:00Z'))).toBe(false); // Sat 23:00
    expect(boundaries(s, NY, '2026-07-01T00:00:00Z', '2026-07-11T00:00:00Z')).toEqual([
      '2026-07-04T02:00:00.000Z',
      '2026-07-04T06:00:00.000Z',
    ]);
  });

  it('spring forward: a window 01:30–02:30 lasts its hour, ending at 03:30 EDT', () => {
    // 2026-03-08 02:00 EST the clocks go to 03:00 EDT; 02:30 does not happen that night.
    const s = schedule({ dailyStart: '01:30', dailyEnd: '02:30' });
    // 01:30 EST, then 03:30 EDT.
    expect(night(s, '2026-03-08')).toEqual(['2026-03-08T06:30:00.000Z', '2026-03-08T07:30:00.000Z']);
    expect(isActiveAt(s, NY, at('2026-03-08T07:29:59Z'))).toBe(true);
    expect(isActiveAt(s, NY, at('2026-03-08T07:30:00Z'))).toBe(false);
    // The next day, as usual: 01:30–02:30 EDT.
    expect(night(s, '2026-03-09')).toEqual(['2026-03-09T05:30:00.000Z', '2026-03-09T06:30:00.000Z']);
  });

  it('spring forward: a window inside the skipped hour falls as long after the change', () => {
    const s = schedule({ dailyStart: '02:15', dailyEnd: '02:45' });
    // From 03:15 EDT.
    expect(night(s, '2026-03-08')).toEqual(['2026-03-08T07:15:00.000Z', '2026-03-08T07:45:00.000Z']);
  });

  it('fall back: a window 01:30–02:30 starts at the first 01:30 and runs on through the repeated hour', () => {
    // 2026-11-01 02:00 EDT the clocks go back to 01:00 EST; 01:30 happens twice.
    const s = schedule({ dailyStart: '01:30', dailyEnd: '02:30' });
    // 01:30 EDT, then 02:30 EST.
    expect(night(s, '2026-11-01')).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T07:30:00.000Z']);
    expect(isActiveAt(s, NY, at('2026-11-01T06:15:00Z'))).toBe(true); // 01:15 EST, the second time
  });

  it('a whole weekday is its local day: 23 hours on spring forward, 25 on fall back', () => {
    const sunday = schedule({ daysOfWeek: ['sunday'] });
    expect(boundaries(sunday, NY, '2026-03-07T12:00:00Z', '2026-03-09T12:00:00Z')).toEqual([
      '2026-03-08T05:00:00.000Z',
      '2026-03-09T04:00:00.000Z',
    ]);
    expect(boundaries(sunday, NY, '2026-10-31T12:00:00Z', '2026-11-02T12:00:00Z')).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-02T05:00:00.000Z',
    ]);
  });

  it('activeUntil runs on through adjacent days and stops at the end date', () => {
    const weekend = schedule({ daysOfWeek: ['saturday', 'sunday'] });
    // Saturday 2026-07-04 noon: on until Monday 00:00 EDT.
    expect(iso(activeUntil(weekend, NY, at('2026-07-04T16:00:00Z')))).toBe('2026-07-06T04:00:00.000Z');
    expect(activeUntil(weekend, NY, at('2026-07-06T16:00:00Z'))).toBeUndefined();
    const always = schedule({});
    expect(activeUntil(always, NY, at('2026-07-06T16:00:00Z'))).toBeNull();
    const capped = schedule({ dailyStart: '16:00', dailyEnd: '18:00', endsAt: '2026-07-01T21:00:00.000Z' });
    expect(iso(activeUntil(capped, NY, at('2026-07-01T20:30:00Z')))).toBe('2026-07-01T21:00:00.000Z');
  });

  it('a boundary before starts_at or after ends_at is none', () => {
    const s = schedule({
      dailyStart: '16:00',
      dailyEnd: '18:00',
      startsAt: '2026-07-02T00:00:00.000Z',
      endsAt: '2026-07-03T21:00:00.000Z',
    });
    expect(boundaries(s, NY, '2026-07-01T00:00:00Z', '2026-07-10T00:00:00Z')).toEqual([
      '2026-07-02T00:00:00.000Z',
      '2026-07-02T20:00:00.000Z',
      '2026-07-02T22:00:00.000Z',
      '2026-07-03T20:00:00.000Z',
      '2026-07-03T21:00:00.000Z',
    ]);
  });
});

describe('the spans a special applies in a coming week (the preview)', () => {
  const spans = (s: SpecialSchedule, zone: string | null, from: string, to: string) =>
    periodsBetween(s, zone, at(from), at(to)).map((span) => [iso(span.start), iso(span.end)]);

  it('lists each daily window of the week, in local time, across the autumn clock change', () => {
    // Mondays and Fridays 16:00–18:00 in New York; on Sunday 2026-11-01 the clocks go back at 02:00.
    const s = schedule({
      daysOfWeek: ['friday', 'monday'],
      dailyStart: '16:00',
      dailyEnd: '18:00',
    });
    expect(spans(s, NY, '2026-10-29T00:00:00Z', '2026-11-05T00:00:00Z')).toEqual([
      ['2026-10-30T20:00:00.000Z', '2026-10-30T22:00:00.000Z'], // Friday, EDT
      ['2026-11-02T21:00:00.000Z', '2026-11-02T23:00:00.000Z'], // Monday, EST
    ]);
  });

  it('starts a span under way at the start of the preview there, and runs a span to its real end', () => {
    const s = schedule({ dailyStart: '22:00', dailyEnd: '02:00' });
    // At 23:00 UTC a window is open (no zone: UTC); the last one opens before the end and closes after it.
    expect(spans(s, null, '2026-07-01T23:00:00Z', '2026-07-03T00:00:00Z')).toEqual([
      ['2026-07-01T23:00:00.000Z', '2026-07-02T02:00:00.000Z'],
      ['2026-07-02T22:00:00.000Z', '2026-07-03T02:00:00.000Z'],
    ]);
  });

  it('one span with no end for a special with no limits; none for one that has ended or starts later', () => {
    expect(spans(schedule({}), NY, '2026-07-01T00:00:00Z', '2026-07-08T00:00:00Z')).toEqual([
      ['2026-07-01T00:00:00.000Z', null],
    ]);
    const ended = schedule({ endsAt: '2026-06-01T00:00:00.000Z' });
    expect(spans(ended, NY, '2026-07-01T00:00:00Z', '2026-07-08T00:00:00Z')).toEqual([]);
    const later = schedule({ startsAt: '2026-08-01T00:00:00.000Z' });
    expect(spans(later, NY, '2026-07-01T00:00:00Z', '2026-07-08T00:00:00Z')).toEqual([]);
    const starting = schedule({ startsAt: '2026-07-03T12:00:00.000Z', endsAt: '2026-07-04T12:00:00.000Z' });
    expect(spans(starting, NY, '2026-07-01T00:00:00Z', '2026-07-08T00:00:00Z')).toEqual([
      ['2026-07-03T12:00:00.000Z', '2026-07-04T12:00:00.000Z'],
    ]);
  });
});
