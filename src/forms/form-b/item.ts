import { Type } from 'typebox';
import type { MenuItem } from '../../domain/item.js';
import { fromCents } from '../../domain/money.js';
import { formBItemExample } from '../examples.js';
import type { FormBNames } from '../form.js';
import { Nullable } from '../nullable.js';

export const FormBPrice = Type.Object(
  {
    unit: Type.String({ enum: ['gram', 'ounce', 'unit'] }),
    amount: Type.Number(),
    price: Type.Number({ description: 'At most two decimals, in the dispensary currency.' }),
    stock: Nullable(
      Type.Number({ description: 'Quantity in stock; null when the dispensary does not track it.' }),
    ),
  },
  { additionalProperties: false },
);

const percent = (what: string) =>
  Nullable(Type.Number({ description: `Percent ${what}; null when unknown.` }));
const milligrams = (what: string) =>
  Nullable(Type.Number({ description: `Milligrams of ${what}; null when unknown.` }));

const brand = Type.String({ description: 'Brand name; empty string when the item has no brand.' });
const prices = Type.Array(FormBPrice);

/** The spec's field table says brand and variants; its sample payload says brand_name and prices. */
const brandFields = { table: { brand }, sample: { brand_name: brand }, both: { brand, brand_name: brand } };
const priceFields = { table: { variants: prices }, sample: { prices }, both: { variants: prices, prices } };

/** Fields in the order of the specification's table, with the chosen spellings in their places. */
export function formBItemSchema(names: FormBNames) {
  return Type.Object(
    {
      id: Type.Integer(),
      name: Type.String(),
      description: Type.String(),
      image: Nullable(Type.String({ description: 'URL of the product image; null when there is none.' })),
      type: Type.String({
        description:
          'Flower, Edible, Concentrate, Tincture, Vape, Drink, Wax, Preroll, Gear, Topical or Other.',
      }),
      subtype: Type.String(),
      ...brandFields[names],
      cbd: percent('CBD'),
      cbn: percent('CBN'),
      thc: percent('THC'),
      total_thc: milligrams('THC'),
      total_cbd: milligrams('CBD'),
      flavors: Type.Array(Type.String()),
      effects: Type.Array(Type.String()),
      conditions: Type.Array(Type.String()),
      ...priceFields[names],
    },
    { additionalProperties: false, title: 'FormBItem' },
  );
}

export function formBMenuSchema(names: FormBNames) {
  return Type.Array(formBItemSchema(names), { examples: [[formBItemExample(names)]] });
}

/** Field names of Form B (both spellings) that differ from the canonical names. */
export const formBItemFieldAliases = {
  type: 'product_type',
  subtype: 'product_subtype',
  brand_name: 'brand',
  variants: 'prices',
} as const;

export function toFormBItem(item: MenuItem, names: FormBNames): Record<string, unknown> {
  const priceEntries = item.prices.map((price) => ({
    unit: price.unit,
    amount: price.amount,
    price: fromCents(price.priceCents),
    stock: price.stock,
  }));
  return {
    id: item.id,
    name: item.name,
    description: item.description,
    image: item.image,
    type: item.productType,
    subtype: item.productSubtype,
    ...(names === 'sample' ? {} : { brand: item.brand }),
    ...(names === 'table' ? {} : { brand_name: item.brand }),
    cbd: item.cbd,
    cbn: item.cbn,
    thc: item.thc,
    total_thc: item.totalThc,
    total_cbd: item.totalCbd,
    flavors: item.flavors,
    effects: item.effects,
    conditions: item.conditions,
    ...(names === 'sample' ? {} : { variants: priceEntries }),
    ...(names === 'table' ? {} : { prices: priceEntries }),
  };
}
