import { type Static, Type } from 'typebox';
import { oneOf } from './field-kinds.js';
import { PRODUCT_TYPES } from './item-vocabulary.js';
import { MAX_PRICE_CENTS } from './money.js';
import { Nullable } from './nullable.js';
import { WEEKDAYS, type Weekday } from './store-info.js';

/**
 * A special, declared once: the sync API's request and answer schemas, the validator
 * (validate-special.ts) and the OpenAPI document all follow from the schemas here.
 */

export const SPECIAL_KINDS = ['percent_off', 'amount_off', 'fixed_price'] as const;
export type SpecialKind = (typeof SPECIAL_KINDS)[number];

/** Which price a special lowers: the recreational `price`, the medical price, or both. */
export const MENU_TYPES = ['rec', 'med', 'both'] as const;
export type MenuType = (typeof MENU_TYPES)[number];

export const SPECIAL_LIMITS = {
  nameLength: 200,
  descriptionLength: 2_000,
  targetsPerList: 1_000,
  targetLength: 200,
} as const;

const TIME_OF_DAY = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'HH:MM, 24-hour, in the store’s time zone.',
  examples: ['16:00'],
});

const texts = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: SPECIAL_LIMITS.targetLength }), {
    maxItems: SPECIAL_LIMITS.targetsPerList,
    description,
  });

/** What a special applies to: an item matching any entry of any list. */
export const SpecialTargetsSchema = Type.Object(
  {
    item_ids: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), {
        maxItems: SPECIAL_LIMITS.targetsPerList,
        description: 'Item ids; an id no item has (yet) matches nothing.',
      }),
    ),
    external_ids: Type.Optional(texts('Items’ external ids (the point of sale’s own), exactly.')),
    brands: Type.Optional(texts('Brands, in any letter case.')),
    product_types: Type.Optional(
      Type.Array(oneOf(PRODUCT_TYPES, `One of ${PRODUCT_TYPES.join(', ')}.`), {
        maxItems: PRODUCT_TYPES.length,
        description: 'Product types.',
      }),
    ),
    tags: Type.Optional(texts('Item tags, in any letter case.')),
  },
  {
    additionalProperties: false,
    title: 'SpecialTargets',
    description:
      'The items a special applies to: an item matching any entry of any list. At least one entry is needed.',
  },
);

/** What a special applies to, as an answer gives it: every list present, empty when not given. */
export const SpecialTargetsOutSchema = Type.Required(SpecialTargetsSchema, {
  additionalProperties: false,
  title: 'SpecialTargetsOut',
  description: 'The items the special applies to: an item matching any entry of any list.',
});

/** When a special applies, in the store's time zone (UTC when the store has none). */
export const SpecialScheduleFields = {
  starts_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'From when (RFC 3339); null: already.',
      examples: ['2026-04-20T00:00:00-07:00'],
    }),
  ),
  ends_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'Until when (RFC 3339, exclusive); null: no end. After starts_at.',
    }),
  ),
  days_of_week: Nullable(
    Type.Array(oneOf(WEEKDAYS, 'A weekday, lowercase.'), {
      minItems: 1,
      maxItems: 7,
      uniqueItems: true,
      description:
        'The days (in the store’s time zone) it applies on, each day’s window starting that day; null: every day.',
    }),
  ),
  daily_start: Nullable({
    ...TIME_OF_DAY,
    description: 'Start of the daily window (HH:MM, store time); null with daily_end: all day.',
  }),
  daily_end: Nullable({
    ...TIME_OF_DAY,
    description: 'End of the daily window (HH:MM, store time, exclusive); before daily_start: past midnight.',
  }),
};

/** Every field a special is written with. */
export const SPECIAL_FIELDS = {
  name: Type.String({ minLength: 1, maxLength: SPECIAL_LIMITS.nameLength, examples: ['Happy hour'] }),
  description: Type.String({ maxLength: SPECIAL_LIMITS.descriptionLength }),
  kind: oneOf(
    SPECIAL_KINDS,
    'percent_off: value percent off; amount_off: value off each price; fixed_price: each price becomes value.',
  ),
  value: Type.Number({
    minimum: 0,
    maximum: MAX_PRICE_CENTS / 100,
    description:
      'Percent (above 0, at most 100) for percent_off; an amount in the dispensary currency for the others. At most two decimals.',
  }),
  applies_to: SpecialTargetsSchema,
  menu_type: oneOf(
    MENU_TYPES,
    'Which prices it lowers: rec (price), med (the medical price), or both. Default both.',
  ),
  ...SpecialScheduleFields,
};

export type SpecialFieldName = keyof typeof SPECIAL_FIELDS;

/** Every field of a special as it is read back: as written, with each list of its targets present. */
export const SPECIAL_OUT_FIELDS = { ...SPECIAL_FIELDS, applies_to: SpecialTargetsOutSchema };

/** What a new special needs; the rest defaults (description "", menu_type both, no schedule limits). */
export const REQUIRED_SPECIAL_FIELDS: readonly SpecialFieldName[] = ['name', 'kind', 'value', 'applies_to'];

export const SPECIAL_EXAMPLE = {
  name: 'Happy hour',
  description: '20% off all flower, weekday afternoons.',
  kind: 'percent_off',
  value: 20,
  applies_to: { product_types: ['Flower'] },
  menu_type: 'both',
  starts_at: '2026-04-01T00:00:00Z',
  ends_at: '2026-07-01T00:00:00Z',
  days_of_week: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  daily_start: '16:00',
  daily_end: '18:00',
} satisfies Record<SpecialFieldName, unknown>;

/** The body of a new special: every field, the required ones required. */
export const SpecialInputSchema = Type.Object(
  Object.fromEntries(
    Object.entries(SPECIAL_FIELDS).map(([name, schema]) => [
      name,
      REQUIRED_SPECIAL_FIELDS.includes(name as SpecialFieldName) ? schema : Type.Optional(schema),
    ]),
  ),
  {
    additionalProperties: false,
    title: 'SpecialInput',
    description:
      'A new special: name, kind, value and applies_to are needed; description defaults to "", menu_type to both, and each schedule field to null (no limit).',
    examples: [SPECIAL_EXAMPLE],
  },
);

/** The body of a change: any fields; the others stay as they are. */
export const SpecialPatchSchema = Type.Object(
  Object.fromEntries(Object.entries(SPECIAL_FIELDS).map(([name, schema]) => [name, Type.Optional(schema)])),
  {
    additionalProperties: false,
    title: 'SpecialPatch',
    description: 'Fields of a special to change; the rest stay as they are. Send null to lift a limit.',
    examples: [{ ends_at: '2026-08-01T00:00:00Z' }],
  },
);

export type SpecialTargetsRecord = Static<typeof SpecialTargetsSchema>;

/** What a special applies to, every list present (empty when not given). */
export interface SpecialTargets {
  itemIds: number[];
  externalIds: string[];
  brands: string[];
  productTypes: string[];
  tags: string[];
}

/** When a special applies: instants as ISO 8601 UTC, times of day as HH:MM in the store's zone. */
export interface SpecialSchedule {
  startsAt: string | null;
  endsAt: string | null;
  daysOfWeek: Weekday[] | null;
  dailyStart: string | null;
  dailyEnd: string | null;
}

/** A special's fields in the model's spelling. */
export interface SpecialFields extends SpecialSchedule {
  name: string;
  description: string;
  kind: SpecialKind;
  /** Integer hundredths: cents for amount_off and fixed_price, hundredths of a percent for percent_off. */
  valueHundredths: number;
  appliesTo: SpecialTargets;
  menuType: MenuType;
}

export interface Special extends SpecialFields {
  id: number;
  dispensaryId: number;
  createdAt: string;
  updatedAt: string;
}
