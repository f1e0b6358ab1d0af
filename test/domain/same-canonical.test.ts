import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCanonicalFieldsJson, sameCanonical, toCanonicalRecord } from '../../src/domain/canonical.js';
import type { MenuItem } from '../../src/domain/item.js';
import { ITEM_FIELD_LIST, type NamedField } from '../../src/domain/item-schema.js';
import { FIELDS_JSON_VERSION, feedJsonOf, itemTexts } from '../../src/store/item-rows.js';
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

/** Any value of a field of `kind`, odd ones included, or undefined (a property JSON leaves out). */
function anyValue(field: NamedField): fc.Arbitrary<unknown> {
  // Quotes, backslashes, controls, lone surrogates and letters beyond Latin-1.
  const text = fc.string({ unit: 'binary', maxLength: 6 });
  const number = fc.oneof(fc.double(), fc.constantFrom(0, -0, 0.1 + 0.2, 1e21, 1e-7, 12.5));
  const byKind: Record<string, fc.Arbitrary<unknown>> = {
    id: fc.integer({ min: 1, max: 1_000 }),
    flag: fc.boolean(),
    money: fc.option(fc.integer({ min: 0, max: 10_000_000 })),
    number: fc.option(number),
    measure: number,
    list: fc.array(text, { maxLength: 3 }),
    document: fc.oneof(fc.constant(null), fc.constant([]), fc.jsonValue({ maxDepth: 2 })),
  };
  return fc.oneof(
    { weight: 9, arbitrary: byKind[field.kind] ?? fc.option(text) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const FIELDS = ITEM_FIELD_LIST.filter((field) => field.kind !== 'entries');
const anyItem = fc.record(
  Object.fromEntries(FIELDS.map((field) => [field.key, anyValue(field)])),
) as unknown as fc.Arbitrary<MenuItem>;
/** The JSON the store keeps of an item's fields (store/item-rows.ts, fieldsJsonOf, without its version). */
const fieldsJson = (item: MenuItem) =>
  JSON.stringify({ ...toCanonicalRecord({ ...item, prices: [] }), prices: undefined });

describe('isCanonicalFieldsJson', () => {
  it("holds exactly when the text is the JSON of the item's fields, whatever each field holds", () => {
    // The other item is the same, or differs in one field (often by little: the same value drawn again).
    const pair = anyItem.chain((item) =>
      fc.tuple(
        fc.constant(item),
        fc.oneof(
          fc.constant(item),
          fc
            .constantFrom(...FIELDS)
            .chain((field) => anyValue(field).map((value) => ({ ...item, [field.key]: value }))),
        ),
      ),
    );
    fc.assert(
      fc.property(pair, fc.string({ maxLength: 3 }), ([item, other], prefix) => {
        const text = prefix + fieldsJson(other);
        expect(isCanonicalFieldsJson(item, text, prefix.length)).toBe(fieldsJson(item) === fieldsJson(other));
        expect(isCanonicalFieldsJson(item, `${text} `, prefix.length)).toBe(false);
        expect(isCanonicalFieldsJson(item, text.slice(0, -1), prefix.length)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('itemTexts and feedJsonOf', () => {
  it("write JSON.stringify's kept JSON and feed JSON of the item, whatever each field holds", () => {
    const entries = fc.array(
      fc.record({
        unit: fc.string({ unit: 'binary', maxLength: 4 }),
        amount: fc.double(),
        priceCents: fc.integer({ min: 0, max: 10_000_000 }),
        stock: fc.option(fc.double()),
        label: fc.string({ unit: 'binary', maxLength: 4 }),
        medPriceCents: fc.option(fc.integer({ min: 0, max: 10_000_000 })),
        sku: fc.string({ maxLength: 3 }),
        barcode: fc.string({ maxLength: 3 }),
      }),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(anyItem, entries, (fields, prices) => {
        const item = { ...fields, prices } as MenuItem;
        const kept = itemTexts(item).fieldsJson;
        expect(kept).toBe(FIELDS_JSON_VERSION + fieldsJson(item));
        expect(feedJsonOf(item, kept)).toBe(JSON.stringify(toCanonicalRecord(item)));
      }),
      { numRuns: 2_000 },
    );
  });
});
