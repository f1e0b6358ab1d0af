import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/domain/field-kinds.js';
import { MAX_ITEM_ID } from '../../src/domain/item.js';
import { fromCents, MAX_PRICE_CENTS, toCents } from '../../src/domain/money.js';
import { validateItem, validateMenu } from '../../src/domain/validate-item.js';
import { ALL_ITEM_FIELD_ALIASES } from '../../src/forms/index.js';
import { BLUE_DREAM } from '../helpers/fixtures.js';
import { priceEntry, SPEC_ONLY_FIELDS } from './item-builder.js';

const ALIASES = ALL_ITEM_FIELD_ALIASES;

/** A valid item in canonical names; tests spoil one field at a time. */
function canonical(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  // A copy: tests change the item they get in place.
  const item = structuredClone(BLUE_DREAM);
  return {
    ...item,
    id: 5,
    cbn: 0,
    total_thc: 215,
    total_cbd: 1,
    flavors: ['Berry', 'Sweet'],
    active: false,
    prices: [item.prices[0], { ...item.prices[1], stock: null }],
    ...overrides,
  };
}

const EXPECTED_ITEM = {
  id: 5,
  name: 'Blue Dream',
  brand: 'Emerald Farms',
  productType: 'Flower',
  productSubtype: 'Hybrid',
  description: 'Berry aroma.',
  image: 'https://img.example/blue.jpg',
  cbd: 0.1,
  cbn: 0,
  thc: 21.5,
  totalThc: 215,
  totalCbd: 1,
  flavors: ['Berry', 'Sweet'],
  effects: ['Happy'],
  conditions: ['Stress'],
  active: false,
  ...SPEC_ONLY_FIELDS,
  prices: [
    priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: 10 }),
    priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3850, stock: null }),
  ],
};

function problemsOf(raw: unknown, prefix = ''): { field: string; message: string }[] {
  const result = validateItem(raw, ALIASES, prefix);
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.item)}`);
  return result.problems;
}

function fieldsOf(raw: unknown, prefix = ''): string[] {
  return problemsOf(raw, prefix).map((problem) => problem.field);
}

describe('validateItem: accepted spellings', () => {
  it('reads canonical names into the canonical model, prices as integer cents', () => {
    expect(validateItem(canonical(), ALIASES)).toEqual({ ok: true, item: EXPECTED_ITEM });
  });

  it('reads Form A names (brand_name, product_prices)', () => {
    const { brand, prices, ...rest } = canonical();
    const result = validateItem({ ...rest, brand_name: brand, product_prices: prices }, ALIASES);
    expect(result).toEqual({ ok: true, item: EXPECTED_ITEM });
  });

  it('reads Form B table names (type, subtype, brand, variants)', () => {
    const { product_type, product_subtype, prices, ...rest } = canonical();
    const result = validateItem(
      { ...rest, type: product_type, subtype: product_subtype, variants: prices },
      ALIASES,
    );
    expect(result).toEqual({ ok: true, item: EXPECTED_ITEM });
  });

  it('reads Form B sample names (brand_name, prices) and both spellings at once when they agree', () => {
    const { product_type, product_subtype, brand, prices, ...rest } = canonical();
    const sample = { ...rest, type: product_type, subtype: product_subtype, brand_name: brand, prices };
    expect(validateItem(sample, ALIASES)).toEqual({ ok: true, item: EXPECTED_ITEM });
    const both = { ...sample, brand, variants: prices };
    expect(validateItem(both, ALIASES)).toEqual({ ok: true, item: EXPECTED_ITEM });
  });

  it('fills defaults for omitted optional fields: no id, active true, "" texts, null numbers, [] lists', () => {
    const result = validateItem({ name: 'Gummy', product_type: 'Edible' }, ALIASES);
    expect(result).toEqual({
      ok: true,
      item: {
        id: null,
        name: 'Gummy',
        brand: '',
        productType: 'Edible',
        productSubtype: '',
        description: '',
        image: null,
        cbd: null,
        cbn: null,
        thc: null,
        totalThc: null,
        totalCbd: null,
        flavors: [],
        effects: [],
        conditions: [],
        active: true,
        ...SPEC_ONLY_FIELDS,
        prices: [],
      },
    });
  });

  it('treats null like omitted, trims text, and matches product types case-insensitively', () => {
    const result = validateItem(
      { name: '  Gummy  ', product_type: ' edible ', thc: null, image: null, active: null, prices: null },
      ALIASES,
    );
    expect(result.ok && result.item).toMatchObject({
      name: 'Gummy',
      productType: 'Edible',
      thc: null,
      image: null,
      active: true,
      prices: [],
    });
  });

  it('accepts every type of the union list, Form B only types included', () => {
    for (const type of ['Vape', 'Topical', 'Other', 'Gear', 'Preroll']) {
      const result = validateItem({ name: 'x', product_type: type }, ALIASES);
      expect(result.ok && result.item.productType).toBe(type);
    }
  });

  it('accepts the limits themselves', () => {
    const result = validateItem(
      canonical({
        id: MAX_ITEM_ID,
        name: 'n'.repeat(LIMITS.nameLength),
        thc: 100,
        cbd: 0,
        total_thc: LIMITS.milligramsMax,
        flavors: Array.from({ length: LIMITS.tagsPerList }, (_, i) => `f${i}`),
        prices: Array.from({ length: LIMITS.pricesPerItem }, (_, i) => ({
          unit: 'unit',
          amount: i + 1,
          price: 100_000_000,
        })),
      }),
      ALIASES,
    );
    expect(result.ok).toBe(true);
  });
});

describe('validateItem: rejected fields', () => {
  it('rejects an alias that disagrees with its canonical twin, naming the alias', () => {
    const problems = problemsOf(canonical({ brand_name: 'Other Farms' }));
    expect(problems).toEqual([
      { field: 'brand_name', message: expect.stringContaining('disagrees with brand') },
    ]);
    expect(fieldsOf({ ...canonical(), variants: [{ unit: 'gram', amount: 2, price: 20 }] })).toEqual([
      'variants',
    ]);
    const { product_type: _, ...withoutType } = canonical();
    expect(fieldsOf({ ...withoutType, type: 'Flower', product_type: 'Edible' })).toEqual(['product_type']);
  });

  it.each([
    ['a string', 'not an item', 'item'],
    ['null', null, 'item'],
    ['an array', [canonical()], 'item'],
  ])('rejects an item that is %s', (_label, raw, field) => {
    expect(problemsOf(raw)).toEqual([{ field, message: 'must be a JSON object' }]);
  });

  it.each([
    ['id', 1.5, 'must be an integer'],
    ['id', 0, 'must be an integer'],
    ['id', -3, 'must be an integer'],
    ['id', MAX_ITEM_ID + 1, 'must be an integer'],
    ['id', '5', 'must be an integer'],
    ['name', 42, 'must be a string'],
    ['name', '   ', 'must not be empty'],
    ['name', 'n'.repeat(LIMITS.nameLength + 1), 'at most 200 characters'],
    ['brand', ['x'], 'must be a string'],
    ['product_subtype', 7, 'must be a string'],
    ['description', 'd'.repeat(LIMITS.descriptionLength + 1), 'at most'],
    ['product_type', 'Bogus', 'must be one of'],
    ['product_type', 3, 'must be one of'],
    ['image', 'ftp://img.example/blue.jpg', 'http or https URL'],
    ['image', 'javascript:alert(1)', 'http or https URL'],
    ['image', 'https://img.example/a b.jpg', 'http or https URL'],
    ['image', 12, 'must be a string'],
    ['thc', '21', 'must be a number'],
    ['thc', 100.5, 'between 0 and 100'],
    ['cbd', -0.1, 'between 0 and 100'],
    ['cbn', Number.NaN, 'must be a number'],
    ['total_thc', LIMITS.milligramsMax + 1, 'between'],
    ['total_cbd', true, 'must be a number'],
    ['flavors', 'Berry', 'must be an array of strings'],
    ['effects', Array.from({ length: LIMITS.tagsPerList + 1 }, () => 'x'), 'at most 50 entries'],
    ['active', 'yes', 'must be true or false'],
    ['active', 1, 'must be true or false'],
    ['prices', { unit: 'gram' }, 'must be an array of price entries'],
  ])('rejects %s = %j', (field, value, message) => {
    const problems = problemsOf(canonical({ [field]: value }));
    expect(problems).toEqual([{ field, message: expect.stringContaining(message) }]);
  });

  it('rejects a missing name and a missing product_type', () => {
    const { name: _n, product_type: _t, ...rest } = canonical();
    expect(problemsOf(rest)).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'product_type', message: 'is required' },
    ]);
  });

  it('names the bad entry of a list', () => {
    expect(problemsOf(canonical({ conditions: ['Pain', ''] }))).toEqual([
      { field: 'conditions[1]', message: 'must be a non-empty string' },
    ]);
    expect(fieldsOf(canonical({ flavors: ['ok', 3] }))).toEqual(['flavors[1]']);
    expect(fieldsOf(canonical({ effects: ['e'.repeat(LIMITS.tagLength + 1)] }))).toEqual(['effects[0]']);
  });

  it('rejects unknown fields, in the item and in a price entry', () => {
    expect(problemsOf(canonical({ colour: 'green' }))).toEqual([
      { field: 'colour', message: 'is not a known field' },
    ]);
    expect(fieldsOf(canonical({ prices: [{ unit: 'gram', amount: 1, price: 5, discount: 1 }] }))).toEqual([
      'prices[0].discount',
    ]);
  });

  it.each([
    ['unit', { unit: 'kilogram', amount: 1, price: 5 }, 'must be one of gram, ounce, unit'],
    ['unit', { unit: 'Gram', amount: 1, price: 5 }, 'must be one of'],
    ['unit', { amount: 1, price: 5 }, 'must be one of'],
    ['amount', { unit: 'gram', amount: 0, price: 5 }, 'above 0'],
    ['amount', { unit: 'gram', amount: -1, price: 5 }, 'above 0'],
    ['amount', { unit: 'gram', amount: '1', price: 5 }, 'above 0'],
    ['amount', { unit: 'gram', amount: LIMITS.amountMax + 1, price: 5 }, 'above 0'],
    ['price', { unit: 'gram', amount: 1, price: 12.345 }, 'at most two decimals'],
    ['price', { unit: 'gram', amount: 1, price: 1.005 }, 'at most two decimals'],
    ['price', { unit: 'gram', amount: 1, price: -1 }, 'non-negative'],
    ['price', { unit: 'gram', amount: 1, price: '12' }, 'must be a number'],
    ['price', { unit: 'gram', amount: 1 }, 'must be a number'],
    ['price', { unit: 'gram', amount: 1, price: 100_000_000.01 }, 'at most two decimals'],
    ['stock', { unit: 'gram', amount: 1, price: 5, stock: -1 }, 'between'],
    ['stock', { unit: 'gram', amount: 1, price: 5, stock: '3' }, 'must be a number'],
  ])('rejects a price entry with a bad %s: %j', (field, entry, message) => {
    const problems = problemsOf(canonical({ prices: [{ unit: 'gram', amount: 3, price: 30 }, entry] }));
    expect(problems).toEqual([{ field: `prices[1].${field}`, message: expect.stringContaining(message) }]);
  });

  it('rejects a price entry that is not an object', () => {
    expect(problemsOf(canonical({ prices: [12] }))).toEqual([
      { field: 'prices[0]', message: expect.stringContaining('must be an object') },
    ]);
  });

  it('rejects a repeated unit and amount, but allows the same unit with another amount', () => {
    const problems = problemsOf(
      canonical({
        prices: [
          { unit: 'gram', amount: 1, price: 12 },
          { unit: 'gram', amount: 3.5, price: 35 },
          { unit: 'gram', amount: 1, price: 11 },
        ],
      }),
    );
    expect(problems).toEqual([{ field: 'prices[2]', message: expect.stringContaining('repeats unit gram') }]);
  });

  it('rejects more prices than the limit', () => {
    const prices = Array.from({ length: LIMITS.pricesPerItem + 1 }, (_, i) => ({
      unit: 'unit',
      amount: i + 1,
      price: 1,
    }));
    expect(problemsOf(canonical({ prices }))).toEqual([
      { field: 'prices', message: expect.stringContaining('at most 100 entries') },
    ]);
  });

  it('reports every problem of an item, not just the first', () => {
    const fields = fieldsOf({
      id: 'x',
      name: '',
      product_type: 'Bogus',
      thc: 300,
      image: 'file:///etc/passwd',
      active: 'no',
      extra: 1,
      prices: [{ unit: 'kg', amount: 0, price: 1.234 }],
    });
    expect(fields.sort()).toEqual(
      [
        'extra',
        'id',
        'name',
        'product_type',
        'thc',
        'image',
        'active',
        'prices[0].unit',
        'prices[0].amount',
        'prices[0].price',
      ].sort(),
    );
  });

  it('prefixes every path, alias problems included', () => {
    const fields = fieldsOf(
      {
        ...canonical({ thc: 101, brand_name: 'Disagrees', colour: 'green' }),
        prices: [{ unit: 'gram', amount: 1, price: 1.111 }],
      },
      '[4].',
    );
    expect(fields.sort()).toEqual(['[4].brand_name', '[4].colour', '[4].prices[0].price', '[4].thc']);
    expect(fieldsOf('x', '[4].')).toEqual(['[4]']);
  });
});

describe('validateMenu', () => {
  it('validates every item and keeps their order', () => {
    const result = validateMenu(
      [canonical({ id: 9 }), { name: 'No id', type: 'Vape', variants: [] }, canonical({ id: 2 })],
      ALIASES,
      10,
    );
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.items.map((item) => item.id)).toEqual([9, null, 2]);
  });

  it('accepts an empty menu', () => {
    expect(validateMenu([], ALIASES, 10)).toEqual({ ok: true, items: [] });
  });

  it('names the path of every problem across items, like [2].prices[0].price', () => {
    const result = validateMenu(
      [
        canonical({ id: 1 }),
        canonical({ id: 2, thc: 'high' }),
        canonical({ id: 3, prices: [{ unit: 'gram', amount: 1, price: 9.999 }] }),
        canonical({ id: 4, brand_name: 'Not Emerald' }),
        'oops',
      ],
      ALIASES,
      10,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      { field: '[1].thc', message: 'must be a number' },
      { field: '[2].prices[0].price', message: 'must be a non-negative amount with at most two decimals' },
      { field: '[3].brand_name', message: expect.stringContaining('disagrees with brand') },
      { field: '[4]', message: 'must be a JSON object' },
    ]);
  });

  it('rejects a repeated id, naming both items', () => {
    const result = validateMenu(
      [canonical({ id: 7 }), canonical({ id: 8 }), canonical({ id: 7 }), { name: 'x', product_type: 'Gear' }],
      ALIASES,
      10,
    );
    expect(result).toMatchObject({
      ok: false,
      problems: [{ field: '[2].id', message: 'repeats id 7 of item [0]' }],
    });
    // The items that passed, for a dry run's counts: the repeat is left out.
    expect(result.items.map((item) => item.id)).toEqual([7, 8, null]);
  });

  it('rejects something that is not an array, and too many items', () => {
    expect(validateMenu({ items: [] }, ALIASES, 10)).toEqual({
      ok: false,
      problems: [{ field: 'menu', message: 'must be a JSON array of items' }],
      items: [],
    });
    const many = Array.from({ length: 4 }, () => ({ name: 'x', product_type: 'Gear' }));
    expect(validateMenu(many, ALIASES, 3)).toEqual({
      ok: false,
      problems: [{ field: 'menu', message: 'has 4 items; at most 3 allowed' }],
      items: [],
    });
    expect(validateMenu(many, ALIASES, 4).ok).toBe(true);
  });
});

describe('money', () => {
  it.each([
    [35.99, 3599],
    [0.1 + 0.2, 30],
    [1.1 * 3, 330],
    [19.99 + 0.01, 2000],
    [0, 0],
    [0.01, 1],
    [12, 1200],
    [38.5, 3850],
    [100_000_000, MAX_PRICE_CENTS],
  ])('toCents(%d) = %d', (value, cents) => {
    expect(toCents(value)).toBe(cents);
    expect(Number.isInteger(toCents(value))).toBe(true);
  });

  it.each([
    ['a third decimal', 12.345],
    ['1.005 (100.49999… cents)', 1.005],
    ['half a cent', 0.005],
    ['a negative price', -1],
    ['minus one cent', -0.01],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['above the maximum', 100_000_000.01],
  ])('toCents rejects %s', (_label, value) => {
    expect(toCents(value)).toBeNull();
  });

  it('fromCents turns cents back into the same two-decimal number', () => {
    for (const value of [35.99, 0.01, 38.5, 12, 22.99, 0.3]) {
      expect(fromCents(toCents(value)!)).toBe(value);
    }
    expect(fromCents(3599)).toBe(35.99);
    expect(JSON.stringify(fromCents(30))).toBe('0.3');
  });
});

describe('list entries and CSV', () => {
  it("rejects a tag holding ';', which a CSV export could not keep whole", () => {
    const result = validateItem({ name: 'Tea', product_type: 'Other', flavors: ['mint;lemon'] }, {});
    expect(result).toEqual({
      ok: false,
      problems: [{ field: 'flavors[0]', message: "must not contain ';'" }],
    });
  });
});
