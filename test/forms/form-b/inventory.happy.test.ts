import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, syncTestRuntime, tick } from '../../helpers/admin.js';
import { formABody, formBHeaders } from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

const MENU = [
  {
    id: 1,
    name: 'Tracked',
    product_type: 'Flower',
    prices: [
      { unit: 'gram', amount: 1, price: 10, stock: 10 },
      { unit: 'gram', amount: 3.5, price: 30, stock: 0 },
      { unit: 'ounce', amount: 0.125, price: 35, stock: 0.5 },
    ],
  },
  {
    id: 2,
    name: 'Untracked',
    product_type: 'Edible',
    prices: [{ unit: 'unit', amount: 1, price: 5, stock: null }],
  },
  {
    id: 3,
    name: 'Hidden',
    product_type: 'Flower',
    active: false,
    prices: [{ unit: 'gram', amount: 1, price: 9, stock: 7 }],
  },
  { id: 4, name: 'No prices', product_type: 'Gear', prices: [] },
];

interface Entry {
  item_id: number;
  unit: string;
  amount: number;
  stock: number | null;
  in_stock: boolean;
  updated_at: string;
}
interface FormBItem {
  id: number;
  variants: { unit: string; amount: number; price: number; stock: number | null }[];
  prices: { unit: string; amount: number; price: number; stock: number | null }[];
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const keyOf = (entry: { item_id: number; unit: string; amount: number }) =>
  `${entry.item_id} ${entry.amount} ${entry.unit}`;

describe('GET /inventory (Form B): happy paths', () => {
  let runtime: TestRuntime;
  let headers: Record<string, string>;
  let admin: AdminCall;
  const inventory = async (query = ''): Promise<Entry[]> => {
    const response = await runtime.app.inject({ method: 'GET', url: `/inventory${query}`, headers });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    return response.json();
  };
  const menu = async (): Promise<FormBItem[]> => {
    const response = await runtime.app.inject({ method: 'GET', url: '/menu', headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  /** Every price entry of Form B's menu with its stock, from both spellings, which must agree. */
  const menuStock = async () =>
    (await menu()).flatMap((item) => {
      expect(item.prices).toEqual(item.variants);
      return item.variants.map((price) => [keyOf({ item_id: item.id, ...price }), price.stock]);
    });
  const inventoryStock = async () => (await inventory()).map((entry) => [keyOf(entry), entry.stock]);
  const dispensary = () => `/dispensaries/${runtime.seed.dispensaryId}`;

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    headers = formBHeaders(runtime.seed);
    admin = (await adminKey(runtime)).call;
  });
  afterAll(() => runtime.close());
  beforeEach(async () => {
    await runtime.services.menus.replace(runtime.seed.dispensaryId, runtime.services.menus.validate([]));
    await runtime.services.menus.replace(runtime.seed.dispensaryId, runtime.services.menus.validate(MENU));
  });

  it('one entry per price entry of every active item, with in_stock from stock', async () => {
    const entries = await inventory();
    expect(entries.map((entry) => [keyOf(entry), entry.stock, entry.in_stock])).toEqual([
      ['1 1 gram', 10, true],
      ['1 3.5 gram', 0, false],
      ['1 0.125 ounce', 0.5, true],
      ['2 1 unit', null, true],
    ]);
    for (const entry of entries) {
      expect(Object.keys(entry)).toEqual(['item_id', 'unit', 'amount', 'stock', 'in_stock', 'updated_at']);
      expect(entry.updated_at).toMatch(ISO);
    }
  });

  it('Form A and Form B answer the same list', async () => {
    const formA = await runtime.app.inject({
      method: 'POST',
      url: '/inventory',
      payload: formABody(runtime.seed),
    });
    expect(await inventory()).toEqual(formA.json());
  });

  it("the stock of Form B's price entries is the inventory's stock", async () => {
    expect(await menuStock()).toEqual(await inventoryStock());
  });

  describe('?since=', () => {
    it('only entries changed strictly after it', async () => {
      const loaded = (await inventory())[0]!.updated_at;
      const justBefore = new Date(Date.parse(loaded) - 1).toISOString();
      expect((await inventory(`?since=${justBefore}`)).length).toBe(4);
      expect(await inventory(`?since=${loaded}`)).toEqual([]);
      expect(await inventory('?since=2999-12-31T23:59:59Z')).toEqual([]);
    });

    it('an offset must be percent-encoded in a URL (+ is a space): %2B works', async () => {
      const loaded = (await inventory())[0]!.updated_at;
      const earlier = new Date(Date.parse(loaded) - 1 + 3600_000).toISOString().replace('Z', '+01:00');
      expect((await inventory(`?since=${encodeURIComponent(earlier)}`)).length).toBe(4);
    });

    it('a poll after a stock change sees exactly that entry', async () => {
      const since = new Date().toISOString();
      await tick();
      const patched = await admin('PATCH', `${dispensary()}/inventory`, [
        { item_id: 1, unit: 'gram', amount: 1, stock: 0 },
        { item_id: 2, unit: 'unit', amount: 1, stock: 6 },
      ]);
      expect(patched.json()).toEqual({ updated: 2 });
      const entries = await inventory(`?since=${since}`);
      expect(entries.map((entry) => [keyOf(entry), entry.stock, entry.in_stock])).toEqual([
        ['1 1 gram', 0, false],
        ['2 1 unit', 6, true],
      ]);
    });

    it('a full sync with the same menu changes no updated_at: the poll after it is empty', async () => {
      const before = await inventory();
      const since = new Date().toISOString();
      await tick();
      expect((await admin('PUT', `${dispensary()}/menu`, MENU)).statusCode).toBe(200);
      expect(await inventory(`?since=${since}`)).toEqual([]);
      expect(await inventory()).toEqual(before);
    });

    it('the same full sync in Form B field names changes nothing either', async () => {
      const since = new Date().toISOString();
      await tick();
      const formB = MENU.map(({ product_type, prices, ...rest }) => ({
        ...rest,
        type: product_type,
        variants: prices,
      }));
      const sync = await admin('PUT', `${dispensary()}/menu`, formB);
      expect(sync.statusCode, sync.body).toBe(200);
      expect(await inventory(`?since=${since}`)).toEqual([]);
    });
  });

  describe('real time: a stock change through the sync API is visible on the very next request', () => {
    it('on /inventory and on /menu, in Form B and in Form A', async () => {
      // Read first, so that anything remembered would be stale.
      expect(await inventoryStock()).toContainEqual(['1 3.5 gram', 0]);
      expect(await menuStock()).toContainEqual(['1 3.5 gram', 0]);
      const patched = await admin('PATCH', `${dispensary()}/inventory`, [
        { item_id: 1, unit: 'gram', amount: 3.5, stock: 42 },
      ]);
      expect(patched.statusCode).toBe(200);
      expect(await inventoryStock()).toContainEqual(['1 3.5 gram', 42]);
      expect(await menuStock()).toContainEqual(['1 3.5 gram', 42]);
      const formA = await runtime.app.inject({
        method: 'POST',
        url: '/inventory',
        payload: formABody(runtime.seed),
      });
      expect(formA.json().find((entry: Entry) => keyOf(entry) === '1 3.5 gram')).toMatchObject({
        stock: 42,
        in_stock: true,
      });
    });

    it('menu and inventory agree after every kind of write', async () => {
      const check = async () => expect(await menuStock()).toEqual(await inventoryStock());
      await inventory();
      await admin('PATCH', `${dispensary()}/inventory`, [
        { item_id: 1, unit: 'ounce', amount: 0.125, stock: 3 },
      ]);
      await check();
      await admin('PATCH', `${dispensary()}/menu/items`, [
        {
          id: 2,
          name: 'Untracked',
          product_type: 'Edible',
          prices: [{ unit: 'unit', amount: 1, price: 5, stock: 8 }],
        },
      ]);
      await check();
      await admin('PATCH', `${dispensary()}/menu/items/3`, { active: true });
      await check();
      expect(await inventoryStock()).toContainEqual(['3 1 gram', 7]);
      await admin('DELETE', `${dispensary()}/menu/items/1`);
      await check();
      await admin('PUT', `${dispensary()}/menu`, MENU.slice(1));
      await check();
      expect(await inventoryStock()).toEqual([['2 1 unit', null]]);
    });
  });
});
