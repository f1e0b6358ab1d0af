import { type Static, Type } from 'typebox';
import type { MenuItem } from '../../domain/item.js';
import { fromCents } from '../../domain/money.js';
import { FORM_A_ITEM_EXAMPLE } from '../examples.js';

export const FormAPrice = Type.Object(
  {
    unit: Type.String({ enum: ['gram', 'ounce', 'unit'] }),
    amount: Type.Number(),
    price: Type.Number({ description: 'At most two decimals, in the dispensary currency.' }),
  },
  { additionalProperties: false },
);

export const FormAItem = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    brand_name: Type.String({ description: 'Empty string when the item has no brand.' }),
    product_type: Type.String({
      description:
        'Flower, Edible, Concentrate, Tincture, Drink, Wax, Preroll or Gear; the types only Form B lists (Vape, Topical, Other) pass through unchanged.',
    }),
    product_subtype: Type.String(),
    description: Type.String(),
    product_prices: Type.Array(FormAPrice),
    active: Type.Boolean(),
  },
  { additionalProperties: false, title: 'FormAItem' },
);
export type FormAItem = Static<typeof FormAItem>;

export const FormAMenu = Type.Array(FormAItem, { examples: [[FORM_A_ITEM_EXAMPLE]] });

/** Field names of Form A that differ from the canonical names. */
export const formAItemFieldAliases = {
  brand_name: 'brand',
  product_prices: 'prices',
} as const;

export function toFormAItem(item: MenuItem): FormAItem {
  return {
    id: item.id,
    name: item.name,
    brand_name: item.brand,
    product_type: item.productType,
    product_subtype: item.productSubtype,
    description: item.description,
    product_prices: item.prices.map((price) => ({
      unit: price.unit,
      amount: price.amount,
      price: fromCents(price.priceCents),
    })),
    active: item.active,
  };
}
