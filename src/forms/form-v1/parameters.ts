import { Type } from 'typebox';
import { DEFAULT_LIMIT, FACETS, MAX_LIMIT, SORT_KEYS } from './query.js';

/** A parameter that may be repeated or hold a comma-separated list (any of the values). */
const list = (description: string, example: string) =>
  Type.Optional(
    Type.Union(
      [Type.String({ maxLength: 2000 }), Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 })],
      {
        description: `${description} Repeat it or separate values with commas: any of them.`,
        examples: [example],
      },
    ),
  );

const text = (description: string, example: string, maxLength = 200) =>
  Type.Optional(Type.String({ maxLength, description, examples: [example] }));

/** `/v1/menu`'s query parameters, as the document describes them (query.ts checks each). */
export const V1_MENU_PARAMETERS = {
  product_type: list('Product types (case-insensitive).', 'Flower,Vape'),
  brand: list('Brands (case- and accent-insensitive).', 'Emerald Farms'),
  strain_type: list('Strain types.', 'sativa_dominant'),
  tag: list('Tags (case-insensitive).', 'Indoor'),
  effect: list('Effects (case- and accent-insensitive).', 'Relaxed,Happy'),
  ids: list('Item ids.', '1,2,3'),
  potency_unit: Type.Optional(
    Type.String({
      enum: ['percent', 'mg'],
      description:
        'The unit of thc_min, thc_max, cbd_min, cbd_max and sort=thc: percent (default; the headline potency, percent by weight) or mg (the total in mg per package: the lab values in mg on the package basis, else total_thc or total_cbd).',
      examples: ['mg'],
    }),
  ),
  thc_min: text(
    'The least headline total THC (potency_unit: percent by weight, or mg per package): items whose range reaches it.',
    '18',
  ),
  thc_max: text('The most headline total THC, in potency_unit.', '25'),
  cbd_min: text('The least headline total CBD, in potency_unit.', '0.5'),
  cbd_max: text('The most headline total CBD, in potency_unit.', '10'),
  price_min: text(
    'The least effective price (under the specials now) of some price entry, in the store currency (menu_type chooses which price).',
    '10',
  ),
  price_max: text('The most effective price of some price entry.', '45.50'),
  menu_type: Type.Optional(
    Type.String({
      enum: ['rec', 'med'],
      description:
        'Which effective price price_min, price_max, on_special and sort=price read: rec (default, effective_price) or med (effective_med_price).',
      examples: ['rec'],
    }),
  ),
  on_special: Type.Optional(
    Type.String({
      enum: ['true'],
      description:
        'Only items with a price entry a special lowers now (special, or med_special with menu_type=med).',
      examples: ['true'],
    }),
  ),
  in_stock: Type.Optional(
    Type.String({
      enum: ['true'],
      description: 'Only items with an entry in stock (or whose stock is not tracked).',
      examples: ['true'],
    }),
  ),
  staff_pick: Type.Optional(
    Type.String({ enum: ['true'], description: 'Only staff picks.', examples: ['true'] }),
  ),
  active: Type.Optional(
    Type.String({
      enum: ['true', 'false', 'all'],
      description: 'true (default): active items; false: inactive ones; all: both.',
      examples: ['all'],
    }),
  ),
  updated_since: text(
    'RFC 3339 time: only items with a price entry changed after it.',
    '2026-11-25T12:00:00Z',
    64,
  ),
  q: text(
    'Full-text search over name, brand, strain, description, tags, effects and flavors: case- and accent-insensitive, every word must match, the last as the start of a word ("blue dr" finds Blue Dream). Sorted by relevance unless sort says otherwise.',
    'blue dr',
  ),
  sort: Type.Optional(
    Type.String({
      enum: [...SORT_KEYS, ...SORT_KEYS.map((key) => `-${key}`)],
      description:
        'The order: - before a key for descending; ties by id. Left out: by id (by relevance with q). Items without the value come last. price is an item’s lowest effective price (menu_type chooses which), price_per_gram its lowest effective adult-use price per gram.',
      examples: ['-thc'],
    }),
  ),
  limit: text(`Items per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`, '50', 16),
  cursor: text(
    'The next_cursor of the previous page, with the same query.',
    'WyJbbnVsbCwxMDBdIiwiYWJjIl0',
    1000,
  ),
  fields: list(
    'Sparse fieldset: the fields to send of each item, prices.<name> for a price entry field.',
    'id,name,prices.price',
  ),
  facets: list(
    `Count the matching items by each value of these lists: ${FACETS.join(', ')}.`,
    'brand,product_type',
  ),
};
