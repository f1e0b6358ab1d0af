import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameCanonical, toCanonicalRecord } from '../../src/domain/canonical.js';
import type { MenuItem } from '../../src/domain/item.js';
import { priceEntry, SPEC_ONLY_ENTRY_FIELDS, SPEC_ONLY_FIELDS } from './item-builder.js';

const base: MenuItem = {
  id: 1,
  name: 'Blue Dream',
  brand: 'Brand',
  productType: 'Flower',
  productSubtype: 'Hybrid',
  description: 'Sweet',
  image: null,
  cbd: null,
  cbn: 0.5,
  thc: 21.5,
  totalThc: null,
  totalCbd: null,
  flavors: ['Berry', 'Pine'],
  effects: [],
  conditions: ['Stress'],
  active: true,
  ...SPEC_ONLY_FIELDS,
  prices: [
    {
      unit: 'gram',
      amount: 1,
      priceCents: 1200,
      stock: 4,
      ...SPEC_ONLY_ENTRY_FIELDS,
      updatedAt: '2026-11-26T00:00:00.000Z',
    },
    priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3800, stock: null }),
  ],
};

/** One change an edit may make (or none), field by field as a sync would send it. */
const edit = fc.constantFrom<(item: MenuItem) => MenuItem>(
  (item) => item,
  (item) => ({ ...item }),
  (item) => ({ ...item, name: `${item.name}!` }),
  (item) => ({ ...item, cbd: 0 }),
  (item) => ({ ...item, cbn: null }),
  (item) => ({ ...item, active: !item.active }),
  (item) => ({ ...item, flavors: [...item.flavors].reverse() }),
  (item) => ({ ...item, flavors: [...item.flavors] }),
  (item) => ({ ...item, effects: ['Happy'] }),
  (item) => ({ ...item, prices: item.prices.slice(0, 1) }),
  (item) => ({ ...item, prices: item.prices.map((price) => ({ ...price })) }),
  // The change time is not part of the canonical record: the store sets it.
  (item) => ({ ...item, prices: item.prices.map((price) => ({ ...price, updatedAt: 'later' })) }),
  (item) => ({
    ...item,
    prices: item.prices.map((price) => ({ ...price, stock: price.stock === null ? 1 : null })),
  }),
  (item) => ({
    ...item,
    prices: item.prices.map((price) => ({ ...price, priceCents: price.priceCents + 1 })),
  }),
  (item) => ({ ...item, prices: [...item.prices].reverse() }),
);

describe('sameCanonical', () => {
  it('tells two items apart exactly when their canonical JSON differs', () => {
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 3 }), fc.array(edit, { maxLength: 3 }), (left, right) => {
        const a = left.reduce((item, change) => change(item), base);
        const b = right.reduce((item, change) => change(item), base);
        const json = (item: MenuItem) => JSON.stringify(toCanonicalRecord(item));
        expect(sameCanonical(a, b)).toBe(json(a) === json(b));
      }),
    );
  });
});
