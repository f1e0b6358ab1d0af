import { describe, expect, it } from 'vitest';
import { MenuPricing, repricedItems, type TargetedItem } from '../../src/domain/special-pricing.js';
import type { Special } from '../../src/domain/special-schema.js';
import { validateSpecial } from '../../src/domain/validate-special.js';

const NOW = Date.parse('2026-07-01T12:00:00Z');

let nextId = 1;
const special = (fields: Partial<Special>): Special => ({
  id: nextId++,
  dispensaryId: 1,
  name: 'Deal',
  description: '',
  kind: 'percent_off',
  valueHundredths: 1000,
  appliesTo: { itemIds: [], externalIds: [], brands: [], productTypes: [], tags: [] },
  menuType: 'both',
  startsAt: null,
  endsAt: null,
  daysOfWeek: null,
  dailyStart: null,
  dailyEnd: null,
  createdAt: '',
  updatedAt: '',
  ...fields,
});
const targets = (fields: Partial<Special['appliesTo']>): Special['appliesTo'] => ({
  itemIds: [],
  externalIds: [],
  brands: [],
  productTypes: [],
  tags: [],
  ...fields,
});
const item = (fields: Partial<TargetedItem> = {}): TargetedItem => ({
  id: 1,
  brand: 'Emerald Farms',
  productType: 'Flower',
  tags: [],
  externalId: '',
  prices: [
    // What pricing reads of an entry: its prices (a gram and an eighth).
    { priceCents: 1299, medPriceCents: null },
    { priceCents: 3800, medPriceCents: null },
  ],
  ...fields,
});
const prices = (pricing: MenuPricing, of: TargetedItem) =>
  pricing.entries(of).map((entry) => [entry.effectivePriceCents, entry.special?.id ?? null]);

describe('effective prices', () => {
  it('takes the best special of each entry; specials do not stack', () => {
    const tenPercent = special({ appliesTo: targets({ productTypes: ['flower'] }) });
    const threeOff = special({
      kind: 'amount_off',
      valueHundredths: 300,
      appliesTo: targets({ itemIds: [1] }),
    });
    const pricing = new MenuPricing([tenPercent, threeOff], null, NOW);
    // 12.99: 10% off is 11.69 (rounded), 3 off is 9.99; 38: 10% off is 34.20, 3 off is 35.
    expect(prices(pricing, item())).toEqual([
      [999, threeOff.id],
      [3420, tenPercent.id],
    ]);
  });

  it('never raises a price, and leaves med specials to medical prices', () => {
    const fixed = special({
      kind: 'fixed_price',
      valueHundredths: 2000,
      appliesTo: targets({ itemIds: [1] }),
    });
    const med = special({ menuType: 'med', valueHundredths: 5000, appliesTo: targets({ itemIds: [1] }) });
    expect(prices(new MenuPricing([fixed, med], null, NOW), item())).toEqual([
      [1299, null],
      [2000, fixed.id],
    ]);
  });

  it('prices the medical price too: med and both specials lower med_price, rec and both lower price, never stacked', () => {
    const withMed = (medPriceCents: number | null) =>
      item({
        prices: [{ priceCents: 1000, medPriceCents }],
      });
    const on = targets({ itemIds: [1] });
    const rec = special({ menuType: 'rec', valueHundredths: 1000, appliesTo: on });
    const med = special({ menuType: 'med', kind: 'amount_off', valueHundredths: 150, appliesTo: on });
    const both = special({ menuType: 'both', valueHundredths: 2000, appliesTo: on });
    const medPrices = (specials: Special[], medPriceCents: number | null) =>
      new MenuPricing(specials, null, NOW)
        .entries(withMed(medPriceCents))
        .map((entry) => [
          entry.effectivePriceCents,
          entry.special?.id ?? null,
          entry.effectiveMedPriceCents,
          entry.medSpecial?.id ?? null,
        ]);
    // 10.00 and medical 8.00: rec takes 10% off price only, med 1.50 off med_price only.
    expect(medPrices([rec, med], 800)).toEqual([[900, rec.id, 650, med.id]]);
    // both (20% off): 8.00 and 6.40, each the best of its own specials; 20% off beats 1.50 off 8.00.
    expect(medPrices([rec, med, both], 800)).toEqual([[800, both.id, 640, both.id]]);
    // 1.50 off 5.00 (3.50) beats 20% off (4.00): the medical price takes med, price takes both.
    expect(medPrices([med, both], 500)).toEqual([[800, both.id, 350, med.id]]);
    // No medical price: none to lower, and a med special changes nothing.
    expect(medPrices([med], null)).toEqual([[1000, null, null, null]]);
    expect(medPrices([], 800)).toEqual([[1000, null, 800, null]]);
  });

  it('matches brands and tags in any letter case, and external ids exactly, when items have them', () => {
    const byBrand = special({ appliesTo: targets({ brands: [' emerald FARMS '] }) });
    const byTag = special({ appliesTo: targets({ tags: ['Sale'] }) });
    const byExternal = special({ appliesTo: targets({ externalIds: ['SKU-1'] }) });
    const other = item({ brand: 'Other', id: 2 });
    expect(prices(new MenuPricing([byBrand], null, NOW), item())[0]).toEqual([1169, byBrand.id]);
    expect(prices(new MenuPricing([byTag], null, NOW), { ...other, tags: ['sale'] })[0]?.[1]).toBe(byTag.id);
    expect(
      prices(new MenuPricing([byExternal], null, NOW), { ...other, externalId: 'sku-1' })[0]?.[1],
    ).toBeNull();
    expect(prices(new MenuPricing([byExternal], null, NOW), { ...other, externalId: 'SKU-1' })[0]?.[1]).toBe(
      byExternal.id,
    );
  });

  it('shows the special’s end as when it stops applying now', () => {
    const happyHour = special({
      dailyStart: '11:00',
      dailyEnd: '13:00',
      appliesTo: targets({ itemIds: [1] }),
    });
    const [entry] = new MenuPricing([happyHour], null, NOW).entries(item());
    expect(entry?.special).toEqual({ id: happyHour.id, name: 'Deal', endsAt: '2026-07-01T13:00:00.000Z' });
  });

  it('names the items a boundary reprices', () => {
    const happyHour = special({
      dailyStart: '12:00',
      dailyEnd: '13:00',
      appliesTo: targets({ itemIds: [1] }),
    });
    const items = [item(), item({ id: 2, brand: 'Other', productType: 'Edible' })];
    const before = new MenuPricing([happyHour], null, NOW - 1);
    const after = new MenuPricing([happyHour], null, NOW);
    expect(repricedItems(items, before, after)).toEqual([1]);
    expect(repricedItems(items, after, after)).toEqual([]);
    // A med special reprices the items with a medical price only.
    const medHour = special({
      ...happyHour,
      id: 999,
      menuType: 'med',
      appliesTo: targets({ itemIds: [1, 3] }),
    });
    const withMed = item({ id: 3, prices: [{ ...item().prices[0]!, medPriceCents: 900 }] });
    const medItems = [item(), withMed];
    expect(
      repricedItems(
        medItems,
        new MenuPricing([medHour], null, NOW - 1),
        new MenuPricing([medHour], null, NOW),
      ),
    ).toEqual([3]);
  });
});

describe('validating a special', () => {
  const valid = { name: 'Deal', kind: 'percent_off', value: 10, applies_to: { brands: ['Acme'] } };
  const problems = (raw: unknown) => {
    const result = validateSpecial(raw);
    return result.ok ? [] : result.problems.map((problem) => problem.field);
  };

  it('accepts a special with its defaults', () => {
    const result = validateSpecial(valid);
    expect(result.ok && result.fields).toMatchObject({
      menuType: 'both',
      description: '',
      valueHundredths: 1000,
    });
  });

  it('names each problem by its field path', () => {
    expect(
      problems({ ...valid, ends_at: '2026-01-01T00:00:00Z', starts_at: '2026-02-01T00:00:00Z' }),
    ).toEqual(['ends_at']);
    expect(problems({ ...valid, applies_to: {} })).toEqual(['applies_to']);
    expect(problems({ ...valid, applies_to: { item_ids: [0] } })).toEqual(['applies_to.item_ids[0]']);
    expect(problems({ ...valid, daily_start: '16:00' })).toEqual(['daily_end']);
    expect(problems({ ...valid, value: 120 })).toEqual(['value']);
    expect(problems({ ...valid, value: 1.234 })).toEqual(['value']);
    expect(problems({ ...valid, kind: 'bogo', colour: 'red' })).toEqual(['colour', 'kind']);
    expect(problems({ kind: 'percent_off' })).toEqual(
      expect.arrayContaining(['name', 'value', 'applies_to']),
    );
  });
});
