/**
 * The one canonical menu item: the union of every field that either request form documents.
 * Request forms map from this model; nothing maps between forms. The fields are declared in
 * item-schema.ts; the model types here follow from them.
 */
import type { MenuItem } from './item-schema.js';
import type { Unit } from './item-vocabulary.js';

export type { MenuItem, PriceEntry } from './item-schema.js';
export { MAX_ITEM_ID, PRODUCT_TYPES, type ProductType, UNITS, type Unit } from './item-vocabulary.js';

/** One stock level to set, matched to a price entry by item, unit and amount. */
export interface StockUpdate {
  itemId: number;
  unit: Unit;
  amount: number;
  stock: number | null;
}

/** An item as an import or sync supplies it: the id is optional and assigned when missing. */
export type MenuItemInput = Omit<MenuItem, 'id'> & { id: number | null };
