import { type TSchema, Type } from 'typebox';
import { EXTERNAL_REF_PATTERN } from '../../../domain/item-ref.js';
import {
  CANONICAL_ITEM_EXAMPLE,
  CanonicalItemSchema,
  ITEM_FIELDS,
  type ItemFieldName,
  PRICE_FIELDS,
} from '../../../domain/item-schema.js';
import { Nullable } from '../../../domain/nullable.js';
import { PricedItemSchema } from '../../../domain/priced-item.js';
import { ALL_ITEM_FIELD_ALIASES } from '../../../forms/index.js';
import { CHECKED_BY_CODE } from '../../pipeline/document-notes.js';
import { DispensaryId, IdText } from './shared.schemas.js';

/** The schemas of the sync API's menu and inventory routes (src/http/routes/admin/menu.ts). */

/** Example requests and answers for the OpenAPI document (each checked against its schema by a test). */
const EXAMPLES = {
  itemPatch: { active: false },
  stock: [
    { item_id: 1, unit: 'gram', amount: 1, stock: 139 },
    { item_id: 1, unit: 'ounce', amount: 0.125, stock: null },
  ],
  importReport: { dispensary_id: 1, items: 12, active_items: 11, price_entries: 40 },
  upsert: { created: [13], updated: [1, 2] },
  stockReport: { updated: 2 },
  importResult: {
    dry_run: true,
    applied: false,
    items: 11,
    active_items: 10,
    price_entries: 37,
    rejected: [{ line: 7, field: 'line 7, price', message: 'must be a number' }],
  },
};

/** An item of the path: its id, or `ext:` and its external_id (the point of sale's id). */
export const ItemRefText = Type.Union(
  [
    IdText('Item id'),
    Type.String({ pattern: EXTERNAL_REF_PATTERN, description: "ext: and the item's external_id" }),
  ],
  { description: 'The item: its id, or ext: and its external_id (ext:pos-10442).' },
);

export const ItemParams = Type.Object({
  id: DispensaryId,
  item_id: ItemRefText,
});

/** An item of the sync API's menu read (src/domain/priced-item.ts): also Form v1's item. */
export const PricedItem = PricedItemSchema;

/** The canonical item: every field of both forms, as imports, exports and the sync API use it. */
export const CanonicalItem = CanonicalItemSchema;

/**
 * An item as the sync API takes it: the canonical fields, and each request form's other spellings.
 * A whole item needs a name (and a product type); a patch may send any fields.
 */
function itemInput(title: string, whole: boolean) {
  // A request may leave out a field with a default (the value it then gets): the input schema names
  // none, since generators (openapi-typescript) type a property with a default as always present.
  const optional = (name: string, withDefault: TSchema) => {
    const { default: _whenMissing, ...schema } = withDefault as TSchema & { default?: unknown };
    return whole && name === 'name' ? schema : Type.Optional(schema);
  };
  return Type.Object(
    {
      ...Object.fromEntries(
        Object.entries(ITEM_FIELDS).map(([name, field]) => [name, optional(name, field.schema)]),
      ),
      ...Object.fromEntries(
        Object.entries(ALL_ITEM_FIELD_ALIASES).map(([alias, canonical]) => [
          alias,
          Type.Optional(
            Type.Unsafe({
              ...ITEM_FIELDS[canonical as ItemFieldName].schema,
              description: `A request form's spelling of ${canonical}: send one of the two.`,
            }),
          ),
        ]),
      ),
    },
    {
      additionalProperties: false,
      title,
      description: whole
        ? 'A canonical item, any field also in a request form\'s spelling. id is assigned when missing; product_type (or its other spelling) is required, in any letter case; a missing text is "", a missing number or image null, a missing list [], a missing active true.'
        : "Fields of a canonical item, any also in a request form's spelling; the rest of the item stays as it is.",
    },
  );
}

/**
 * What the schema leaves to the item validator (src/domain/validate-item.ts, shared with `menu import`):
 * it checks each item and names every problem by index and field, which one schema failure could not.
 */
const CHECKED_BY_VALIDATOR = Type.Unknown({
  description: 'Any other value is refused with 400, each problem named by index and field.',
  [CHECKED_BY_CODE]: true,
});

export const ItemsBody = Type.Array(Type.Union([itemInput('ItemInput', true), CHECKED_BY_VALIDATOR]), {
  description: 'Items with canonical, Form A or Form B field names; id optional (assigned when missing).',
  examples: [[CANONICAL_ITEM_EXAMPLE]],
});

export const ItemPatchBody = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  anyOf: [itemInput('ItemPatch', false), CHECKED_BY_VALIDATOR],
  description: 'Any item fields to change, for example {"active": false}.',
  examples: [EXAMPLES.itemPatch],
});

export const StockBody = Type.Array(
  Type.Object(
    {
      item_id: Type.Union([
        Type.Integer({ minimum: 1 }),
        Type.String({ pattern: '^ext:.{1,100}$', description: "ext: and the item's external_id" }),
      ]),
      unit: PRICE_FIELDS.unit.schema,
      amount: Type.Number(),
      stock: Nullable(Type.Number()),
    },
    { additionalProperties: false, title: 'StockLevel' },
  ),
  {
    description: 'Stock levels to set, each matched to a price entry by item, unit and amount.',
    examples: [EXAMPLES.stock],
  },
);

export const ImportReportOut = Type.Object(
  {
    dispensary_id: Type.Integer(),
    items: Type.Integer(),
    active_items: Type.Integer(),
    price_entries: Type.Integer(),
  },
  { title: 'ImportReport', examples: [EXAMPLES.importReport] },
);

export const UpsertOut = Type.Object(
  {
    created: Type.Array(Type.Integer()),
    updated: Type.Array(Type.Integer()),
  },
  { title: 'UpsertResult', examples: [EXAMPLES.upsert] },
);

export const StockOut = Type.Object(
  { updated: Type.Integer() },
  { title: 'StockResult', examples: [EXAMPLES.stockReport] },
);

export const MenuFileQuerystring = Type.Object({
  format: Type.Union([Type.Literal('csv'), Type.Literal('json')], {
    description: 'csv (the canonical columns, a row per price entry) or json (an array of items).',
  }),
  dry_run: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true: check only, nothing is written.',
    }),
  ),
});

export const ExportQuerystring = Type.Object({
  format: Type.Union([Type.Literal('csv'), Type.Literal('json')]),
});

export const ImportResultOut = Type.Object(
  {
    dry_run: Type.Boolean(),
    applied: Type.Boolean({ description: 'Whether the menu was replaced.' }),
    items: Type.Integer({ description: 'Items that passed validation.' }),
    active_items: Type.Integer(),
    price_entries: Type.Integer(),
    rejected: Type.Array(
      Type.Object({
        line: Nullable(Type.Integer({ description: 'The CSV line, or the JSON item index + 1.' })),
        field: Type.String(),
        message: Type.String(),
      }),
      { description: 'Every problem found; an apply with any is refused with 400 instead.' },
    ),
  },
  { title: 'ImportResult', examples: [EXAMPLES.importResult] },
);
