import type { SpecialSchedule } from './special-schema.js';
import { WEEKDAYS } from './store-info.js';

// When a special applies, worked out in the store's time zone with the platform's time zone data
// (Intl). A daily window is a span of local clock time on each allowed day: it starts at
// `daily_start` on that day and ends at `daily_end` the same day (the next day when the end is
// earlier: past midnight). On a day the clocks change, a time of day is resolved as RFC 5545 (and
// Temporal's "compatible") resolves it: a time that happens twice is its first occurrence, and a time
// that does not happen (skipped forward) is read with the offset before the change, so it falls as
// long after the change as it would have fallen after the skipped time.

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A zone the platform knows, else UTC (a store's zone is checked when it is set). */
function formatterOf(zone: string | null): Intl.DateTimeFormat {
  const name = zone ?? 'UTC';
  let formatter = formatters.get(name);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        hourCycle: 'h23',
      });
    } catch {
      return formatterOf('UTC');
    }
    formatters.set(name, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC at instant `at` (ms): local clock time minus UTC. */
export function zoneOffset(zone: string | null, at: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour! % 24,
    parts.minute!,
    parts.second!,
  );
  return local - Math.floor(at / 1000) * 1000;
}

/** The instant a local clock time (given as if it were UTC, in ms) happens in the zone (see above). */
export function instantOf(zone: string | null, wall: number): number {
  const before = zoneOffset(zone, wall - DAY_MS);
  const after = zoneOffset(zone, wall + DAY_MS);
  const happens = [before, after]
    .map((offset) => wall - offset)
    .filter((at) => zoneOffset(zone, at) === wall - at)
    .sort((a, b) => a - b);
  // Twice: the first; never (skipped forward): with the offset before the change.
  return happens[0] ?? wall - before;
}

/** The local date of an instant, as the UTC midnight of that date (ms). */
function localDay(zone: string | null, at: number): number {
  return Math.floor((at + zoneOffset(zone, at)) / DAY_MS) * DAY_MS;
}

const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/** Whether the schedule limits the days or hours (else it applies all the time between its dates). */
const hasWindows = (schedule: SpecialSchedule): boolean =>
  schedule.daysOfWeek !== null || schedule.dailyStart !== null;

/** The window that starts on local day `day`, if the special has one that day: [start, end). */
function windowOn(zone: string | null, schedule: SpecialSchedule, day: number): [number, number] | undefined {
  if (schedule.daysOfWeek !== null) {
    const weekday = WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7]!;
    if (!schedule.daysOfWeek.includes(weekday)) return undefined;
  }
  if (schedule.dailyStart === null || schedule.dailyEnd === null) {
    return [instantOf(zone, day), instantOf(zone, day + DAY_MS)];
  }
  const start = minutesOf(schedule.dailyStart);
  const end = minutesOf(schedule.dailyEnd);
  const endDay = end <= start ? day + DAY_MS : day;
  return [instantOf(zone, day + start * MINUTE_MS), instantOf(zone, endDay + end * MINUTE_MS)];
}

const instant = (time: string | null): number | null => (time === null ? null : Date.parse(time));

/** Whether the special applies at `at` (ms) in the store's zone. */
export function isActiveAt(schedule: SpecialSchedule, zone: string | null, at: number): boolean {
  const starts = instant(schedule.startsAt);
  const ends = instant(schedule.endsAt);
  if ((starts !== null && at < starts) || (ends !== null && at >= ends)) return false;
  if (!hasWindows(schedule)) return true;
  const today = localDay(zone, at);
  // A window that started yesterday may still be open (past midnight, or a whole day).
  for (const day of [today - DAY_MS, today]) {
    const window = windowOn(zone, schedule, day);
    if (window && window[0] <= at && at < window[1]) return true;
  }
  return false;
}

/**
 * The first instant after `after` (ms) at which the special may start or stop applying, or null when
 * it never will again: its start, its end, and each window's edges between them.
 */
export function nextBoundary(schedule: SpecialSchedule, zone: string | null, after: number): number | null {
  const starts = instant(schedule.startsAt);
  const ends = instant(schedule.endsAt);
  if (ends !== null && after >= ends) return null;
  const candidates: number[] = [];
  if (starts !== null) candidates.push(starts);
  if (ends !== null) candidates.push(ends);
  if (hasWindows(schedule)) {
    // A week and a day ahead finds the next window of any set of weekdays.
    const today = localDay(zone, after);
    for (let offset = -1; offset <= 8; offset++) {
      const window = windowOn(zone, schedule, today + offset * DAY_MS);
      if (window) candidates.push(...window);
    }
  }
  let next: number | null = null;
  for (const at of candidates) {
    if (at <= after || (starts !== null && at < starts) || (ends !== null && at > ends)) continue;
    if (next === null || at < next) next = at;
  }
  return next;
}

/**
 * While the special applies at `at`: when it stops (its end, or the end of the day's window, run on
 * through adjacent windows), or null when it does not stop. Undefined when it does not apply at `at`.
 */
export function activeUntil(
  schedule: SpecialSchedule,
  zone: string | null,
  at: number,
): number | null | undefined {
  if (!isActiveAt(schedule, zone, at)) return undefined;
  let from = at;
  // Whole days in a row are adjacent windows; a week of them is the most there can be before a gap.
  for (let step = 0; step < 16; step++) {
    const boundary = nextBoundary(schedule, zone, from);
    if (boundary === null) return null;
    if (!isActiveAt(schedule, zone, boundary)) return boundary;
    from = boundary;
  }
  return instant(schedule.endsAt);
}

/** A span during which a special applies: [start, end) in ms; end null when it does not stop. */
export interface AppliesPeriod {
  start: number;
  end: number | null;
}

/**
 * The spans during which the special applies that begin before `to` and end after `from` (ms), in
 * order: what a preview of the coming days shows. A span under way at `from` starts at `from`; a span
 * runs to its real end, past `to` when it does.
 */
export function periodsBetween(
  schedule: SpecialSchedule,
  zone: string | null,
  from: number,
  to: number,
): AppliesPeriod[] {
  const periods: AppliesPeriod[] = [];
  let at = from;
  while (at < to) {
    const end = activeUntil(schedule, zone, at);
    if (end !== undefined) {
      periods.push({ start: at, end });
      if (end === null) break;
      at = end;
      continue;
    }
    const next = nextBoundary(schedule, zone, at);
    if (next === null) break;
    at = next;
  }
  return periods;
}
