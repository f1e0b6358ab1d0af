/**
 * The one canonical menu item: the union of every field that either request form
 * documents. Request forms map from this model; nothing maps between forms.
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

export interface PriceEntry {
  unit: Unit;
  amount: number;
  /** Integer minor units (cents): prices are never stored as floats. */
  priceCents: number;
  /** Quantity in stock; null when the dispensary does not track stock for this entry. */
  stock: number | null;
  /** When this entry's price or stock last changed; set by the store, absent on input. */
  updatedAt?: string;
}

/** One stock level to set, matched to a price entry by item, unit and amount. */
export interface StockUpdate {
  itemId: number;
  unit: Unit;
  amount: number;
  stock: number | null;
}

export interface MenuItem {
  id: number;
  name: string;
  brand: string;
  productType: ProductType;
  productSubtype: string;
  description: string;
  image: string | null;
  /** Percentages. */
  cbd: number | null;
  cbn: number | null;
  thc: number | null;
  /** Milligrams. */
  totalThc: number | null;
  totalCbd: number | null;
  flavors: string[];
  effects: string[];
  conditions: string[];
  active: boolean;
  prices: PriceEntry[];
}

/** An item as an import or sync supplies it: the id is optional and assigned when missing. */
export type MenuItemInput = Omit<MenuItem, 'id'> & { id: number | null };

export const MAX_ITEM_ID = 2_147_483_647;
