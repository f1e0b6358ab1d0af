import { WEEKDAYS, type Weekday, type WeeklyHours } from './store-info.js';

export interface OpenStatus {
  /** Null when the store has not listed its hours. */
  open: boolean | null;
  /** For people: "Open now · closes 21:00", "Closed · opens Tuesday 09:00", "Hours not listed". */
  label: string;
}

const minutes = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const capitalized = (day: Weekday): string => day[0]!.toUpperCase() + day.slice(1);

/** The weekday (0 = Monday) and minute of the day at `at` in `timeZone` (UTC when unknown or invalid). */
export function localTime(at: Date, timeZone: string | null): { day: number; minute: number } {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: timeZone ?? 'UTC',
      weekday: 'long',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(at);
  } catch {
    return localTime(at, 'UTC');
  }
  const part = (type: string) => parts.find((entry) => entry.type === type)?.value ?? '';
  const day = WEEKDAYS.indexOf(part('weekday').toLowerCase() as Weekday);
  return { day, minute: (Number(part('hour')) % 24) * 60 + Number(part('minute')) };
}

/**
 * Whether the store is open at `at`, in its own time zone. A day's close before its open means past
 * midnight (open until then on the next day); an open equal to the close means open all day.
 */
export function openStatus(hours: WeeklyHours | null, timeZone: string | null, at: Date): OpenStatus {
  if (!hours) return { open: null, label: 'Hours not listed' };
  const { day, minute } = localTime(at, timeZone);
  const dayHours = (offset: number) => hours[WEEKDAYS[(day + offset + 7) % 7]!];
  const today = dayHours(0);
  const yesterday = dayHours(-1);
  if (
    !yesterday.closed &&
    minutes(yesterday.close) < minutes(yesterday.open) &&
    minute < minutes(yesterday.close)
  ) {
    return { open: true, label: `Open now · closes ${yesterday.close}` };
  }
  if (!today.closed) {
    const open = minutes(today.open);
    const close = minutes(today.close);
    if (open === close) return { open: true, label: 'Open now · open all day' };
    if (minute >= open && (close < open || minute < close)) {
      return { open: true, label: `Open now · closes ${today.close}` };
    }
    if (minute < open) return { open: false, label: `Closed · opens ${today.open}` };
  }
  for (let offset = 1; offset <= 7; offset++) {
    const next = dayHours(offset);
    if (next.closed) continue;
    const name = offset === 1 ? 'tomorrow' : capitalized(WEEKDAYS[(day + offset) % 7]!);
    return { open: false, label: `Closed · opens ${name} ${next.open}` };
  }
  return { open: false, label: 'Closed' };
}

/** The week's hours as lines for a page: ["Monday", "09:00–21:00"], ["Sunday", "Closed"]. */
export function weekLines(hours: WeeklyHours): [string, string][] {
  return WEEKDAYS.map((day) => {
    const entry = hours[day];
    return [capitalized(day), entry.closed ? 'Closed' : `${entry.open}–${entry.close}`];
  });
}

/** schema.org openingHours ("Mo 09:00-21:00"), one entry per open day. */
export function schemaOrgHours(hours: WeeklyHours): string[] {
  const short = ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'];
  return WEEKDAYS.flatMap((day, index) => {
    const entry = hours[day];
    return entry.closed ? [] : [`${short[index]} ${entry.open}-${entry.close}`];
  });
}
