import { type Static, Type } from 'typebox';
import { fromCanonicalRecord } from '../../domain/canonical.js';
import type { MenuItem, ProductType } from '../../domain/item.js';
import { CANONICAL_ITEM_EXAMPLE, ITEM_FIELDS, PRICE_FIELDS } from '../../domain/item-schema.js';
import { aliasesOf, respeller, spelledSchemas } from '../../domain/item-spelling.js';

/** Form A's item: the canonical fields it sends, under its names, in its order. */
const ITEM_SPELLING = {
  id: 'id',
  name: 'name',
  brand_name: 'brand',
  product_type: 'product_type',
  product_subtype: 'product_subtype',
  description: 'description',
  product_prices: 'prices',
  active: 'active',
} as const;
const PRICE_SPELLING = { unit: 'unit', amount: 'amount', price: 'price' } as const;

export const FormAPrice = Type.Object(spelledSchemas(PRICE_FIELDS, PRICE_SPELLING), {
  additionalProperties: false,
});

export const FormAItem = Type.Object(
  {
    ...spelledSchemas(ITEM_FIELDS, ITEM_SPELLING, Type.Array(FormAPrice)),
    product_type: Type.Unsafe<ProductType>({
      ...ITEM_FIELDS.product_type.schema,
      description:
        'Flower, Edible, Concentrate, Tincture, Drink, Wax, Preroll or Gear; the types only Form B lists (Vape, Topical, Other) pass through unchanged.',
    }),
  },
  { additionalProperties: false, title: 'FormAItem' },
);
export type FormAItem = Static<typeof FormAItem>;

export const toFormAItem = respeller(ITEM_SPELLING, PRICE_SPELLING) as (item: MenuItem) => FormAItem;

export const FormAMenu = Type.Array(FormAItem, {
  examples: [[toFormAItem(fromCanonicalRecord(CANONICAL_ITEM_EXAMPLE))]],
});

/** Field names of Form A that differ from the canonical names. */
export const formAItemFieldAliases = aliasesOf(ITEM_SPELLING);
