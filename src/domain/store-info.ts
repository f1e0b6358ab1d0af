import { MENU_TYPES } from './lab-vocabulary.js';
import type { FieldProblem } from './validate-item.js';

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A day's opening hours in the store's local time; a close before the open means past midnight. */
export type DayHours =
  | { open: string; close: string; closed: false }
  | { open: null; close: null; closed: true };

export type WeeklyHours = Record<Weekday, DayHours>;

/** The menus a store sells from: adult-use (rec), medical (med), or both (lab-vocabulary.ts). */
export { MENU_TYPES };
export type MenuType = (typeof MENU_TYPES)[number];

/** What integrators read about a store. Unknown values are null. */
export interface StoreInfo {
  name: string;
  address: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
  phone: string | null;
  email: string | null;
  website: string | null;
  /** IANA time zone name, the zone of `hours`. */
  timezone: string | null;
  licenseNumber: string | null;
  /** ISO 4217 code: the currency of every price of this dispensary. */
  currency: string;
  hours: WeeklyHours | null;
  logo: string | null;
  /** The menus it sells from, in MENU_TYPES order; null when the store has not said. */
  menuTypes: MenuType[] | null;
  updatedAt: string;
}

export type StoreInfoPatch = Partial<Omit<StoreInfo, 'updatedAt'>>;

/** Wire name (snake_case, also the column name) to model name, for the fields a client may set. */
export const STORE_INFO_FIELDS = {
  name: 'name',
  address: 'address',
  city: 'city',
  state: 'state',
  postal_code: 'postalCode',
  country: 'country',
  phone: 'phone',
  email: 'email',
  website: 'website',
  timezone: 'timezone',
  license_number: 'licenseNumber',
  currency: 'currency',
  hours: 'hours',
  logo: 'logo',
  menu_types: 'menuTypes',
} as const satisfies Record<string, keyof StoreInfoPatch>;

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const URL_FIELDS = new Set(['website', 'logo']);
const KNOWN_TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone'));
const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

function isTimeZone(name: string): boolean {
  if (KNOWN_TIME_ZONES.has(name)) return true;
  try {
    // Aliases such as "US/Pacific" are valid IANA names that the canonical list leaves out.
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * A week of hours. A day left out keeps its current hours (`current`), so that one day can be changed
 * alone; when the store has no hours yet, every day is needed, and the missing ones are named.
 */
function validateHours(
  raw: unknown,
  problems: FieldProblem[],
  current: WeeklyHours | null,
): WeeklyHours | null | undefined {
  if (raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({
      field: 'hours',
      message: `must be an object with the keys ${WEEKDAYS.join(', ')}, or null`,
    });
    return undefined;
  }
  const days = raw as Record<string, unknown>;
  const hours: Partial<WeeklyHours> = {};
  for (const key of Object.keys(days)) {
    if (!(WEEKDAYS as readonly string[]).includes(key))
      problems.push({ field: `hours.${key}`, message: 'is not a weekday' });
  }
  const missing = WEEKDAYS.filter((day) => days[day] === undefined);
  if (missing.length > 0 && !current) {
    problems.push({
      field: 'hours',
      message: `has no ${missing.join(', ')}: the store has no hours yet, so give every day (${WEEKDAYS.length}), each {"open": "HH:MM", "close": "HH:MM"} or {"closed": true}; later updates may give only the days that change`,
    });
  }
  for (const day of WEEKDAYS) {
    const value = days[day] as Record<string, unknown> | undefined;
    if (value === undefined) {
      if (current) hours[day] = current[day];
    } else if (value && typeof value === 'object' && value.closed === true) {
      hours[day] = { open: null, close: null, closed: true };
    } else if (
      value &&
      typeof value === 'object' &&
      typeof value.open === 'string' &&
      typeof value.close === 'string'
    ) {
      if (!TIME.test(value.open) || !TIME.test(value.close)) {
        problems.push({
          field: `hours.${day}`,
          message: 'open and close must be HH:MM in 24-hour local time',
        });
      } else {
        hours[day] = { open: value.open, close: value.close, closed: false };
      }
    } else {
      problems.push({
        field: `hours.${day}`,
        message: 'must be {"open": "HH:MM", "close": "HH:MM"} or {"closed": true}',
      });
    }
  }
  return hours as WeeklyHours;
}

/** `["rec"]`, `["med"]` or both (kept in MENU_TYPES order), or null (not said). */
function validateMenuTypes(raw: unknown, problems: FieldProblem[]): MenuType[] | null | undefined {
  if (raw === null) return null;
  const known = (value: unknown): value is MenuType => (MENU_TYPES as readonly unknown[]).includes(value);
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every(known) || new Set(raw).size !== raw.length) {
    problems.push({
      field: 'menu_types',
      message: 'must be ["rec"], ["med"] or ["rec", "med"] (the menus the store sells from), or null',
    });
    return undefined;
  }
  return MENU_TYPES.filter((type) => raw.includes(type));
}

/** Validates store fields sent in snake_case; only the fields present are returned. */
export function validateStoreInfoPatch(
  raw: unknown,
  /** The store's hours now: days an update leaves out keep them. */
  currentHours: WeeklyHours | null = null,
): { ok: true; patch: StoreInfoPatch } | { ok: false; problems: FieldProblem[] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: [{ field: 'body', message: 'must be a JSON object' }] };
  }
  const problems: FieldProblem[] = [];
  const patch: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(raw)) {
    const key = STORE_INFO_FIELDS[field as keyof typeof STORE_INFO_FIELDS];
    if (!key) {
      problems.push({
        field,
        message: `is not a store field (known: ${Object.keys(STORE_INFO_FIELDS).join(', ')})`,
      });
      continue;
    }
    if (field === 'hours') {
      const hours = validateHours(value, problems, currentHours);
      if (hours !== undefined) patch.hours = hours;
      continue;
    }
    if (field === 'menu_types') {
      const menuTypes = validateMenuTypes(value, problems);
      if (menuTypes !== undefined) patch.menuTypes = menuTypes;
      continue;
    }
    if (value === null && field !== 'name' && field !== 'currency') {
      patch[key] = null;
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '' || value.length > 500) {
      problems.push({ field, message: 'must be a non-empty string of at most 500 characters' });
      continue;
    }
    const text = value.trim();
    if (text.includes('\0')) {
      // PostgreSQL text cannot hold NUL: refused on every database alike, rather than a 500 there.
      problems.push({ field, message: 'must not contain a NUL character' });
    } else if (field === 'timezone' && !isTimeZone(text)) {
      problems.push({ field, message: 'must be an IANA time zone name such as America/Los_Angeles' });
    } else if (field === 'currency' && !KNOWN_CURRENCIES.has(text)) {
      problems.push({ field, message: 'must be an ISO 4217 currency code such as USD' });
    } else if (field === 'email' && !/^[^\s@]+@[^\s@]+$/.test(text)) {
      problems.push({ field, message: 'must be an e-mail address' });
    } else if (URL_FIELDS.has(field) && !/^https?:\/\/\S+$/i.test(text)) {
      problems.push({ field, message: 'must be an http or https URL' });
    } else {
      patch[key] = text;
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, patch: patch as StoreInfoPatch };
}

/** The wire shape of store information (both forms send the same object). */
export function toStoreInfoRecord(info: StoreInfo) {
  return {
    name: info.name,
    address: info.address,
    city: info.city,
    state: info.state,
    postal_code: info.postalCode,
    country: info.country,
    phone: info.phone,
    email: info.email,
    website: info.website,
    timezone: info.timezone,
    license_number: info.licenseNumber,
    currency: info.currency,
    hours: info.hours,
    logo: info.logo,
    // Left out until the store says: the forms' answers stay what they were for every store that has not.
    ...(info.menuTypes !== null && { menu_types: info.menuTypes }),
    updated_at: info.updatedAt,
  };
}
