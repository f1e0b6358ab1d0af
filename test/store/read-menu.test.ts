import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuItem, MenuItemInput } from '../../src/domain/item.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import { readWhileWriting } from '../helpers/read-while-writing.js';

function input(id: number, overrides: Partial<MenuItemInput> = {}): MenuItemInput {
  return {
    id,
    name: `Item ${id}`,
    brand: 'Brand',
    productType: 'Flower',
    productSubtype: 'Hybrid',
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
    prices: [{ unit: 'gram', amount: 1, priceCents: 1000, stock: null }],
    ...overrides,
  };
}

const withoutTimes = (items: readonly MenuItemInput[]): MenuItemInput[] =>
  items.map((item) => ({
    ...item,
    prices: item.prices.map(({ unit, amount, priceCents, stock }) => ({ unit, amount, priceCents, stock })),
  }));

describe(`readMenu on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await testDatabase();
    store = await openStore(database.address);
  });
  afterAll(async () => {
    await store?.close();
    await database?.cleanup();
  });

  it('gives back every column as written: nulls, decimals, large integers, lists, booleans', async () => {
    const dispensary = await store.dispensaries.create('Columns', 'digest-columns');
    const items = [
      input(30, {
        prices: [
          { unit: 'ounce', amount: 0.125, priceCents: 3599, stock: 4 },
          { unit: 'gram', amount: 1, priceCents: 1, stock: null },
          { unit: 'gram', amount: 3.5, priceCents: 10_000_000_000, stock: 0 },
        ],
      }),
      input(2, {
        prices: [],
        active: false,
        cbd: 0.1,
        cbn: 0,
        thc: 27.35,
        totalThc: 1000,
        totalCbd: 0.5,
        image: 'https://img.example/x.png',
        flavors: ['Pine', 'Citrus'],
        effects: ['Calm', 'Sleepy'],
        conditions: ['Pain'],
        description: 'Multi\nline, "quoted" 日本',
      }),
      input(11, { productType: 'Edible', prices: [{ unit: 'unit', amount: 10, priceCents: 0, stock: 12 }] }),
      input(12, { prices: [] }),
    ];
    await store.menus.replace(dispensary.id, items);
    const read = await store.menus.read(dispensary.id);
    expect(withoutTimes(read)).toEqual([items[1], items[2], items[3], items[0]]);
    for (const price of read.flatMap((item: MenuItem) => item.prices)) {
      expect(price.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('reads on the store that is writing see whole menus, never its open write', async () => {
    const dispensary = await store.dispensaries.create('Self', 'digest-self');
    const menu = (version: number) =>
      Array.from({ length: 40 }, (_, index) =>
        input(index + 1, {
          name: `version ${version} item ${index + 1}`,
          prices:
            index % 4 === 0
              ? []
              : [{ unit: 'gram', amount: 1, priceCents: version * 1000 + index, stock: version }],
        }),
      );
    const versions = [withoutTimes(menu(0)), withoutTimes(menu(1))];
    await store.menus.replace(dispensary.id, menu(0));
    // Each read waits for the store's write transaction to end, and the next write for the read.
    const { seen, mixed } = await readWhileWriting(
      async () => withoutTimes(await store.menus.read(dispensary.id)),
      versions,
      async () => {
        for (let round = 1; round <= 10; round++) await store.menus.replace(dispensary.id, menu(round % 2));
      },
    );
    expect(mixed).toBe(0);
    expect(Math.min(...seen)).toBeGreaterThan(0);
    expect(withoutTimes(await store.menus.read(dispensary.id))).toEqual(versions[0]);
  });
});
