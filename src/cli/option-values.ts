import type { MenuFileFormat } from '../services/menus.js';

/*
 * Values that both a command's definition (src/cli/commands, loaded for --help) and its work
 * (src/cli/actions, loaded when it runs) need. They live here so neither folder imports the other's
 * files: the commands load the actions lazily, and an import back would close a cycle.
 */

export const MENU_FILE_FORMATS: readonly MenuFileFormat[] = ['json', 'csv'];

/** Help for each store field `dispensary update` sets from its own option. */
export const STORE_FIELD_HELP = {
  name: 'the dispensary name',
  address: 'street address',
  city: 'city',
  state: 'state or province',
  postal_code: 'postal code',
  country: 'country',
  phone: 'phone number',
  email: 'contact e-mail',
  website: 'website URL',
  timezone: 'IANA time zone, for example America/Los_Angeles',
  license_number: 'state license number',
  currency: 'ISO 4217 currency of every price (default USD)',
  hours: 'JSON: {"monday": {"open": "09:00", "close": "21:00"}, "sunday": {"closed": true}, ...}',
  logo: 'logo URL',
  menu_types: 'the menus it sells from: rec, med or rec,med',
} as const;
/** The store fields `dispensary update` sets, each from its own option. */
export const STORE_FIELDS = Object.keys(STORE_FIELD_HELP) as (keyof typeof STORE_FIELD_HELP)[];
