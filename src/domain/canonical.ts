import type { MenuItem } from './item.js';
import { fromCents } from './money.js';

/** The canonical item on the wire (exports, imports): every field, snake_case, prices as numbers. */
export interface CanonicalRecord {
  id: number;
  name: string;
  brand: string;
  product_type: string;
  product_subtype: string;
  description: string;
  image: string | null;
  cbd: number | null;
  cbn: number | null;
  thc: number | null;
  total_thc: number | null;
  total_cbd: number | null;
  flavors: string[];
  effects: string[];
  conditions: string[];
  active: boolean;
  prices: { unit: string; amount: number; price: number; stock: number | null }[];
}

/** The canonical record's item fields besides `prices`, in the order an export writes them. */
export const CANONICAL_ITEM_FIELDS = [
  'id',
  'name',
  'brand',
  'product_type',
  'product_subtype',
  'description',
  'image',
  'cbd',
  'cbn',
  'thc',
  'total_thc',
  'total_cbd',
  'flavors',
  'effects',
  'conditions',
  'active',
] as const satisfies readonly (keyof CanonicalRecord)[];

/** The fields of a canonical price entry. */
export const CANONICAL_PRICE_FIELDS = [
  'unit',
  'amount',
  'price',
  'stock',
] as const satisfies readonly (keyof CanonicalRecord['prices'][number])[];

export function toCanonicalRecord(item: MenuItem): CanonicalRecord {
  return {
    id: item.id,
    name: item.name,
    brand: item.brand,
    product_type: item.productType,
    product_subtype: item.productSubtype,
    description: item.description,
    image: item.image,
    cbd: item.cbd,
    cbn: item.cbn,
    thc: item.thc,
    total_thc: item.totalThc,
    total_cbd: item.totalCbd,
    flavors: item.flavors,
    effects: item.effects,
    conditions: item.conditions,
    active: item.active,
    prices: item.prices.map((price) => ({
      unit: price.unit,
      amount: price.amount,
      price: fromCents(price.priceCents),
      stock: price.stock,
    })),
  };
}
