import type { MenuItem, MenuItemInput, PriceEntry } from '../../src/domain/item.js';

/** The fields a menu written with the specification's fields only leaves at their missing values. */
export const SPEC_ONLY_FIELDS = {
  tags: [],
  staffPick: false,
  externalId: '',
  strain: null,
  cannabinoids: [],
  terpenes: [],
  batch: null,
  serving: null,
  images: [],
} satisfies Partial<MenuItem>;

/** The same in the canonical record's spelling (two names differ), and a price entry's. */
const { staffPick, externalId, ...SPELLED_ALIKE } = SPEC_ONLY_FIELDS;
export const SPEC_ONLY_RECORD_FIELDS = { ...SPELLED_ALIKE, staff_pick: staffPick, external_id: externalId };
export const SPEC_ONLY_PRICE_FIELDS = { label: '', med_price: null, sku: '', barcode: '' };
/** A price entry's, in the model's spelling. */
export const SPEC_ONLY_ENTRY_FIELDS = { label: '', medPriceCents: null, sku: '', barcode: '' };

/** A price entry with the specification's fields only: what a test states, the rest at their missing values. */
export const priceEntry = (
  fields: Pick<PriceEntry, 'unit' | 'amount' | 'priceCents' | 'stock'>,
): PriceEntry => ({
  ...fields,
  ...SPEC_ONLY_ENTRY_FIELDS,
});

/** A plain flower item with one price entry, and the fields a test cares about in `overrides`. */
export function itemInput(id: number | null, overrides: Partial<MenuItemInput> = {}): MenuItemInput {
  return {
    id,
    name: `Item ${id ?? 'new'}`,
    brand: 'Brand',
    productType: 'Flower',
    productSubtype: 'Hybrid',
    description: '',
    image: null,
    cbd: null,
    cbn: null,
    thc: 20.5,
    totalThc: null,
    totalCbd: null,
    flavors: ['Pine'],
    effects: [],
    conditions: [],
    active: true,
    ...SPEC_ONLY_FIELDS,
    prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 1000, stock: null })],
    ...overrides,
  };
}

/** The same, as a stored item (with its id). */
export const menuItem = (id: number, overrides: Partial<MenuItem> = {}): MenuItem =>
  itemInput(id, overrides) as MenuItem;
