/**
 * The one canonical menu item: the union of every field that either request form documents.
 * Request forms map from this model; nothing maps between forms. The fields are declared in
 * item-schema.ts; the model types here follow from them.
 */
import type { MenuItem } from './item-schema.js';

export type { MenuItem, PriceEntry } from './item-schema.js';

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

/** One stock level to set, matched to a price entry by item, unit and amount. */
export interface StockUpdate {
  itemId: number;
  unit: Unit;
  amount: number;
  stock: number | null;
}

/** An item as an import or sync supplies it: the id is optional and assigned when missing. */
export type MenuItemInput = Omit<MenuItem, 'id'> & { id: number | null };

export const MAX_ITEM_ID = 2_147_483_647;
