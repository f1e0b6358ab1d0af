import { type Static, Type } from 'typebox';
import {
  analytes,
  document,
  type Field,
  field,
  LIMITS,
  milligrams,
  oneOf,
  optionalObject,
  percent,
  tags,
} from './field-kinds.js';
import { BatchSchema, ImageSchema, ServingSchema, StrainSchema } from './item-documents.js';
import { MAX_ITEM_ID, PRODUCT_TYPES, type ProductType, UNITS, type Unit } from './item-vocabulary.js';
import { MAX_PRICE_CENTS } from './money.js';
import { Nullable } from './nullable.js';

/**
 * The canonical menu item and price entry, declared once. Everything else that names the fields
 * derives from the declarations here: the model types (src/domain/item.ts), the canonical record and
 * field lists (canonical.ts), the validator (validate-item.ts), the table types and row mapping
 * (src/store), the CSV columns (src/services/menu-files/csv.ts), the sync API's schemas and the
 * forms' item schemas. A new field is one line in ITEM_FIELDS (or PRICE_FIELDS), one migration and
 * one line in each form's mapping.
 */

/** The price entry's fields, in the order every wire shape and export lists them. */
export const PRICE_FIELDS = {
  unit: field('unit', oneOf<Unit>(UNITS), 'gram'),
  amount: field('measure', Type.Number({ exclusiveMinimum: 0, maximum: LIMITS.amountMax }), 1),
  price: field(
    'money',
    Type.Number({
      minimum: 0,
      maximum: MAX_PRICE_CENTS / 100,
      description: 'At most two decimals, in the dispensary currency.',
    }),
    12,
  ),
  stock: field(
    'number',
    Nullable(
      Type.Number({
        minimum: 0,
        maximum: LIMITS.stockMax,
        description: 'Quantity in stock; null when the dispensary does not track it.',
      }),
    ),
    140,
  ),
  label: field(
    'text',
    Type.String({
      maxLength: LIMITS.labelLength,
      description: 'The size as sold ("Eighth", "1/8 oz"); "" when none.',
    }),
    'Eighth',
  ),
  med_price: field(
    'money',
    Nullable(
      Type.Number({
        minimum: 0,
        maximum: MAX_PRICE_CENTS / 100,
        description: 'The medical price, at most two decimals; null when it is price (the adult-use price).',
      }),
    ),
    34,
  ),
  sku: field('text', Type.String({ maxLength: LIMITS.codeLength, description: '"" when none.' }), 'BD-8TH'),
  barcode: field(
    'text',
    Type.String({ maxLength: LIMITS.codeLength, description: '"" when none.' }),
    '850001234567',
  ),
} as const;

export const PriceEntrySchema = Type.Object(fieldSchemas(PRICE_FIELDS), { additionalProperties: false });

/**
 * The item's fields, in the order every export lists them. The price entries stay last: the live
 * feed puts their JSON after the JSON an item keeps of its other fields (store/item-rows.ts checks it).
 */
export const ITEM_FIELDS = {
  id: field('id', Type.Integer({ minimum: 1, maximum: MAX_ITEM_ID }), 1),
  name: field('text', Type.String({ minLength: 1, maxLength: LIMITS.nameLength }), 'Blue Dream'),
  brand: field(
    'text',
    Type.String({
      maxLength: LIMITS.brandLength,
      description: 'Brand name; empty string when the item has no brand.',
    }),
    'Emerald Farms',
  ),
  product_type: field(
    'category',
    oneOf<ProductType>(PRODUCT_TYPES, `${PRODUCT_TYPES.slice(0, -1).join(', ')} or ${PRODUCT_TYPES.at(-1)}.`),
    'Flower',
  ),
  product_subtype: field('text', Type.String({ maxLength: LIMITS.subtypeLength }), 'Hybrid'),
  description: field(
    'text',
    Type.String({ maxLength: LIMITS.descriptionLength }),
    'Sativa-leaning hybrid with sweet berry aroma; a daytime classic.',
  ),
  image: field(
    'url',
    Nullable(
      Type.String({
        maxLength: LIMITS.imageLength,
        description: 'URL of the product image; null when there is none.',
      }),
    ),
    'https://images.example.com/menu/blue-dream.jpg',
  ),
  cbd: field('number', percent('CBD'), 0.1),
  cbn: field('number', percent('CBN'), null),
  thc: field('number', percent('THC'), 21.5),
  total_thc: field('number', milligrams('THC'), null),
  total_cbd: field('number', milligrams('CBD'), null),
  flavors: field('list', tags(), ['Berry', 'Sweet', 'Earthy']),
  effects: field('list', tags(), ['Creative', 'Uplifted', 'Relaxed']),
  conditions: field('list', tags(), ['Stress', 'Depression']),
  active: field('flag', Type.Boolean({ description: 'False hides the item from the public menus.' }), true),
  tags: field('list', tags(), ['Indoor', 'Small batch']),
  staff_pick: field(
    'flag',
    Type.Boolean({ default: false, description: 'Staff recommend it; false when missing.' }),
    true,
  ),
  external_id: field(
    'text',
    Type.String({
      maxLength: LIMITS.externalIdLength,
      description:
        'The point of sale\'s id, unique within the dispensary; "" when none. Partial sync matches an item without id by it.',
    }),
    'pos-10442',
  ),
  strain: optionalObject(StrainSchema, {
    name: 'Blue Dream',
    type: 'sativa_dominant',
    lineage: 'Blueberry × Haze',
  }),
  cannabinoids: analytes('cannabinoids', [
    { code: 'd9-thc', min: 0.6, max: 0.6, unit: '%', basis: 'weight', status: 'detected' },
    { code: 'd9-thca', min: 23.8, max: 23.8, unit: '%', basis: 'weight', status: 'detected' },
    { code: 'cbd', min: null, max: null, unit: '%', basis: 'weight', status: 'nd' },
  ]),
  terpenes: analytes('terpenes', [
    { code: 'beta-myrcene', min: 0.9, max: 1.1, unit: '%', basis: 'weight', status: 'detected' },
    { code: 'limonene', min: 0.4, max: 0.4, unit: '%', basis: 'weight', status: 'detected' },
  ]),
  batch: optionalObject(BatchSchema, {
    package_label: '1A4060300003B01000012345',
    batch_number: 'BD-2026-11',
    lab_name: 'Emerald Test Labs',
    lab_license: 'LAB-00042',
    tested_at: '2026-11-02',
    coa_url: 'https://labs.example.com/coa/BD-2026-11.pdf',
    passed: true,
    tests: {
      potency: 'pass',
      pesticides: 'pass',
      microbials: 'pass',
      heavy_metals: 'pass',
      residual_solvents: 'not_tested',
      mycotoxins: 'pass',
    },
  }),
  serving: optionalObject(ServingSchema, null),
  images: document(
    Type.Array(ImageSchema, {
      maxItems: LIMITS.imagesPerItem,
      description: "The item's pictures; image is the URL of the first primary one.",
    }),
    [
      { url: 'https://images.example.com/menu/blue-dream.jpg', alt: 'Blue Dream buds', role: 'primary' },
      { url: 'https://images.example.com/menu/blue-dream-label.jpg', alt: "The jar's label", role: 'label' },
    ],
    'images',
  ),
  prices: field('entries', Type.Array(PriceEntrySchema, { maxItems: LIMITS.pricesPerItem }), [
    {
      unit: 'gram',
      amount: 1,
      price: 12,
      stock: 140,
      label: 'Gram',
      med_price: null,
      sku: 'BD-1G',
      barcode: '',
    },
    {
      unit: 'ounce',
      amount: 0.125,
      price: 38,
      stock: 44,
      label: 'Eighth',
      med_price: 34,
      sku: 'BD-8TH',
      barcode: '850001234567',
    },
  ]),
} as const;

type Fields = Readonly<Record<string, Field>>;
type Schemas<F extends Fields> = { -readonly [N in keyof F]: F[N]['schema'] };

function fieldSchemas<F extends Fields>(fields: F): Schemas<F> {
  return Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, spec.schema])) as Schemas<F>;
}

export type CanonicalPrice = Static<typeof PriceEntrySchema>;
export type CanonicalItem = Static<ReturnType<typeof Type.Object<Schemas<typeof ITEM_FIELDS>>>>;
export type ItemFieldName = keyof typeof ITEM_FIELDS & string;
export type PriceFieldName = keyof typeof PRICE_FIELDS & string;

/** The one example item (canonical spelling) that every documented item example is made from. */
export const CANONICAL_ITEM_EXAMPLE = Object.fromEntries(
  Object.entries(ITEM_FIELDS).map(([name, spec]) => [name, spec.example]),
) as CanonicalItem;

/** The canonical item: every field of both forms, as imports, exports and the sync API use it. */
export const CanonicalItemSchema = Type.Object(fieldSchemas(ITEM_FIELDS), {
  additionalProperties: false,
  title: 'CanonicalItem',
  examples: [CANONICAL_ITEM_EXAMPLE],
});

// The model (camelCase, money in cents) and the table columns follow from each field's name and kind.

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;

type ModelKey<N extends string, F> = F extends { kind: 'money' } ? `${Camel<N>}Cents` : Camel<N>;
type ColumnKey<N extends string, F> = F extends { kind: 'money' } ? `${N}_cents` : N;

type ModelValue<F extends Field> = F extends { kind: 'entries' } ? PriceEntry[] : Static<F['schema']>;
type ColumnValue<F extends Field> = F extends { kind: 'list' | 'category' | 'unit' | 'document' }
  ? string
  : F extends { kind: 'flag' }
    ? number
    : Static<F['schema']>;

type Flat<T> = { [K in keyof T]: T[K] };

/** A record of fields in the model's spelling (camelCase; money as integer cents). */
export type ModelOf<F extends Fields> = Flat<{
  -readonly [N in keyof F & string as ModelKey<N, F[N]>]: ModelValue<F[N]>;
}>;

/** A row of fields in the tables' spelling (snake_case; lists as JSON text, flags as 0/1). */
export type ColumnsOf<F extends Fields> = Flat<{
  -readonly [N in keyof F & string as F[N] extends { kind: 'entries' }
    ? never
    : ColumnKey<N, F[N]>]: ColumnValue<F[N]>;
}>;

export type PriceEntry = Flat<
  ModelOf<typeof PRICE_FIELDS> & {
    /** When this entry's price or stock last changed; set by the store, absent on input. */
    updatedAt?: string;
  }
>;
export type MenuItem = ModelOf<typeof ITEM_FIELDS>;

const camel = (name: string) => name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** A field with its names in every spelling, worked out once for the loops that map records. */
export interface NamedField extends Field {
  /** The canonical (wire) name. */
  name: string;
  /** The model's name: camelCase, `<name>Cents` for money. */
  key: string;
  /** The table column: the name, `<name>_cents` for money. */
  column: string;
}

const named = (fields: Fields): readonly NamedField[] =>
  Object.entries(fields).map(([name, spec]) => ({
    ...spec,
    name,
    key: spec.kind === 'money' ? `${camel(name)}Cents` : camel(name),
    column: spec.kind === 'money' ? `${name}_cents` : name,
  }));

/** The item's fields in declaration order, with their names. */
export const ITEM_FIELD_LIST = named(ITEM_FIELDS);
/** The price entry's fields in declaration order, with their names. */
export const PRICE_FIELD_LIST = named(PRICE_FIELDS);
