import { Type } from 'typebox';
import { Nullable } from '../../domain/nullable.js';
import { MENU_TYPES, WEEKDAYS } from '../../domain/store-info.js';
import { STORE_INFO_EXAMPLE } from '../examples.js';

const text = (description: string) => Nullable(Type.String({ description }));

const DayHours = Type.Object(
  {
    open: Nullable(Type.String({ description: 'HH:MM, local time' })),
    close: Nullable(Type.String({ description: 'HH:MM, local time; before open means after midnight' })),
    closed: Type.Boolean(),
  },
  { additionalProperties: false },
);

/** The menus a store sells from (StoreInfo.menuTypes). */
export const MenuTypesSchema = Type.Array(Type.Union(MENU_TYPES.map((type) => Type.Literal(type))), {
  minItems: 1,
  maxItems: MENU_TYPES.length,
  uniqueItems: true,
  description:
    'The menus it sells from: rec (adult-use), med (medical) or both; absent until the store says.',
});

/** Store information: the same object in both request forms. Unknown values are null. */
export const StoreInfoSchema = Type.Object(
  {
    name: Type.String(),
    address: text('Street address'),
    city: text('City'),
    state: text('State or province'),
    postal_code: text('Postal code'),
    country: text('Country (ISO 3166-1 alpha-2 recommended)'),
    phone: text('Phone number'),
    email: text('Contact e-mail'),
    website: text('Website URL'),
    timezone: text('IANA time zone of the opening hours, for example America/Los_Angeles'),
    license_number: text('State license number'),
    currency: Type.String({ description: 'ISO 4217 code of every price of this dispensary (default USD)' }),
    hours: Type.Unsafe<unknown>({
      type: ['object', 'null'],
      description: 'Opening hours per weekday in local time; null when unknown',
      properties: Object.fromEntries(WEEKDAYS.map((day) => [day, DayHours])),
    }),
    logo: text('Logo URL'),
    menu_types: Type.Optional(MenuTypesSchema),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, title: 'StoreInfo', examples: [STORE_INFO_EXAMPLE] },
);
