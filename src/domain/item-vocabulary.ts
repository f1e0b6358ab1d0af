/**
 * The closed lists and limits an item's fields draw from. They sit apart from item.ts so that the
 * item schema (which item.ts's types follow from) can use them without an import cycle.
 */

/** Union of both forms' product type lists (Form B's list is a superset of Form A's). */
export const PRODUCT_TYPES = [
  'Flower',
  'Edible',
  'Concentrate',
  'Tincture',
  'Vape',
  'Drink',
  'Wax',
  'Preroll',
  'Gear',
  'Topical',
  'Other',
] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

export const UNITS = ['gram', 'ounce', 'unit'] as const;
export type Unit = (typeof UNITS)[number];

export const MAX_ITEM_ID = 2_147_483_647;
