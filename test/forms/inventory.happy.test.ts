import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, syncTestRuntime, tick } from '../helpers/admin.js';
import { formABody, formBHeaders } from '../helpers/http.js';
import type { InventoryEntry as Entry } from '../helpers/inventory.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';
import { FORM_DRIVERS, type FormDriver } from './driver.js';

type Price = { unit: string; amount: number; price: number; stock: number | null };

/** An item in the sync API's shape, active unless `active` says otherwise. */
const item = (id: number, name: string, productType: string, prices: Price[], active = true) => ({
  id,
  name,
  product_type: productType,
  ...(active ? {} : { active }),
  prices,
});
const price = (unit: string, amount: number, at: number, stock: number | null): Price => ({
  unit,
  amount,
  price: at,
  stock,
});

/** Tracked and untracked stock, an inactive item with prices, an item without prices. */
const BASE_MENU = [
  item(1, 'Tracked', 'Flower', [
    price('gram', 1, 10, 10),
    price('gram', 3.5, 30, 0),
    price('ounce', 0.125, 35, 0.5),
  ]),
  item(2, 'Untracked', 'Edible', [price('unit', 1, 5, null)]),
  item(3, 'Hidden', 'Flower', [price('gram', 1, 9, 7)], false),
  item(4, 'No prices', 'Gear', []),
];
/** The base entries as /inventory lists them: key, stock, in_stock. */
const BASE_ENTRIES = [
  ['1 1 gram', 10, true],
  ['1 3.5 gram', 0, false],
  ['1 0.125 ounce', 0.5, true],
  ['2 1 unit', null, true],
];

/** Each form's menu, and its entries: Form A's menu adds an item with the same unit twice. */
const MENUS = {
  a: [...BASE_MENU, item(5, 'Same unit twice', 'Wax', [price('gram', 1, 12, 3), price('gram', 2, 20, 0)])],
  b: BASE_MENU,
};
const ENTRIES = {
  a: [...BASE_ENTRIES, ['5 1 gram', 3, true], ['5 2 gram', 0, false]],
  b: BASE_ENTRIES,
};

/** An item that comes back after being inactive, and one that stays. */
const REACTIVATED_MENU = [
  item(1, 'Seasonal', 'Flower', [price('gram', 1, 9, 7)], false),
  item(2, 'Steady', 'Flower', [price('gram', 1, 10, 3)]),
];

interface FormBItem {
  id: number;
  variants: { unit: string; amount: number; price: number; stock: number | null }[];
  prices: { unit: string; amount: number; price: number; stock: number | null }[];
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const keyOf = (entry: { item_id: number; unit: string; amount: number }) =>
  `${entry.item_id} ${entry.amount} ${entry.unit}`;
/** Each entry as `[key, stock, in_stock]`, for comparing a whole answer at a glance. */
const stockRows = (entries: Entry[]) => entries.map((entry) => [keyOf(entry), entry.stock, entry.in_stock]);

/** Asks /inventory in this form; parameters may carry `since` (and, in Form A, another token). */
async function askInventory(
  form: FormDriver,
  runtime: TestRuntime,
  parameters: Record<string, unknown> = {},
) {
  const response = await form.send(runtime, '/inventory', {
    credentials: form.credentials(runtime.seed),
    parameters,
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  return response.json() as Entry[];
}

describe.each(FORM_DRIVERS)('$id: /inventory happy paths', (form) => {
  const MENU = MENUS[form.id];

  describe(`${form.title('/inventory')}: happy paths`, () => {
    let runtime: TestRuntime;
    let admin: AdminCall;
    const inventory = (parameters: Record<string, unknown> = {}) => askInventory(form, runtime, parameters);
    const dispensary = () => `/dispensaries/${runtime.seed.dispensaryId}`;
    /** Adds an item through the sync API's partial sync. */
    const addItem = (added: ReturnType<typeof item>) => admin('PATCH', `${dispensary()}/menu/items`, [added]);

    beforeAll(async () => {
      runtime = await syncTestRuntime();
      admin = (await adminKey(runtime)).call;
    });
    afterAll(() => runtime.close());
    beforeEach(async () => {
      await runtime.services.menus.replace(runtime.seed.dispensaryId, runtime.services.menus.validate([]));
      await runtime.services.menus.replace(runtime.seed.dispensaryId, runtime.services.menus.validate(MENU));
    });

    it('one entry per price entry of every active item, with exactly these fields, in menu order', async () => {
      const entries = await inventory();
      expect(stockRows(entries)).toEqual(ENTRIES[form.id]);
      for (const entry of entries) {
        expect(Object.keys(entry)).toEqual(['item_id', 'unit', 'amount', 'stock', 'in_stock', 'updated_at']);
        expect(entry.updated_at).toMatch(ISO);
      }
    });

    describe('since', () => {
      it('only entries changed strictly after it', async () => {
        const count = ENTRIES[form.id].length;
        const entries = await inventory();
        const loaded = entries[0]!.updated_at;
        expect(new Set(entries.map((entry) => entry.updated_at))).toEqual(new Set([loaded]));
        const justBefore = new Date(Date.parse(loaded) - 1).toISOString();
        expect((await inventory({ since: justBefore })).length).toBe(count);
        expect(await inventory({ since: loaded })).toEqual([]);
        expect(await inventory({ since: '2999-01-01T00:00:00Z' })).toEqual([]);
        expect(await inventory({ since: '2999-12-31T23:59:59Z' })).toEqual([]);
        expect((await inventory({ since: '2000-01-01T00:00:00Z' })).length).toBe(count);
      });

      it('a full sync that changes nothing keeps every updated_at: a poll after it sees nothing', async () => {
        const before = await inventory();
        const since = new Date().toISOString();
        await tick();
        const sync = await admin('PUT', `${dispensary()}/menu`, MENU);
        expect(sync.statusCode, sync.body).toBe(200);
        expect(await inventory({ since })).toEqual([]);
        expect(await inventory()).toEqual(before);
      });
    });

    if (form.id === 'a') {
      it('in_stock is stock > 0, and true where stock is not tracked (null)', async () => {
        expect(stockRows(await inventory())).toEqual([
          ['1 1 gram', 10, true],
          ['1 3.5 gram', 0, false],
          ['1 0.125 ounce', 0.5, true],
          ['2 1 unit', null, true],
          ['5 1 gram', 3, true],
          ['5 2 gram', 0, false],
        ]);
      });

      it('an empty menu is an empty list', async () => {
        const created = await runtime.services.dispensaries.create('Empty Shop');
        expect(await inventory({ collective_token: created.token })).toEqual([]);
      });

      it('each token answers with its own dispensary', async () => {
        const created = await runtime.services.dispensaries.create('Other Shop');
        await runtime.services.menus.replace(
          created.id,
          runtime.services.menus.validate([
            {
              id: 1,
              name: 'Elsewhere',
              product_type: 'Flower',
              prices: [{ unit: 'gram', amount: 1, price: 1, stock: 99 }],
            },
          ]),
        );
        const entries = await inventory({ collective_token: created.token });
        expect(entries.map((entry) => [keyOf(entry), entry.stock])).toEqual([['1 1 gram', 99]]);
        expect((await inventory()).length).toBe(6);
      });

      describe('since', () => {
        it('a stock change through the sync API: the next poll sees exactly that entry, with its new stock', async () => {
          const before = await inventory();
          const since = before[0]!.updated_at;
          await tick();
          const patched = await admin('PATCH', `${dispensary()}/inventory`, [
            { item_id: 5, unit: 'gram', amount: 2, stock: 12 },
          ]);
          expect(patched.statusCode, patched.body).toBe(200);
          const changed = await inventory({ since });
          expect(changed).toEqual([
            {
              item_id: 5,
              unit: 'gram',
              amount: 2,
              stock: 12,
              in_stock: true,
              updated_at: expect.stringMatching(ISO),
            },
          ]);
          expect(changed[0]!.updated_at > since).toBe(true);
          // And the full list changed in that one place only.
          const after = await inventory();
          expect(after.filter((entry) => keyOf(entry) !== '5 2 gram')).toEqual(
            before.filter((entry) => keyOf(entry) !== '5 2 gram'),
          );
        });

        it('offsets are times like any other: +02:00 is two hours before Z', async () => {
          const loaded = (await inventory())[0]!.updated_at;
          const at = new Date(Date.parse(loaded) - 1);
          // The same instant written in UTC+02:00.
          const shifted = new Date(at.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
          expect((await inventory({ since: shifted })).length).toBe(6);
          const later = new Date(Date.parse(loaded) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
          expect(await inventory({ since: later })).toEqual([]);
        });

        it('a full sync that changes one stock and one price: a poll sees exactly those two', async () => {
          const since = new Date().toISOString();
          await tick();
          const changed = structuredClone(MENU) as {
            name: string;
            prices: { price: number; stock?: number | null }[];
          }[];
          changed[0]!.prices[1]!.stock = 4;
          changed[4]!.prices[0]!.price = 13;
          changed[1]!.name = 'Renamed, same prices';
          const sync = await admin('PUT', `${dispensary()}/menu`, changed);
          expect(sync.statusCode, sync.body).toBe(200);
          expect(stockRows(await inventory({ since }))).toEqual([
            ['1 3.5 gram', 4, true],
            ['5 1 gram', 3, true],
          ]);
        });

        it('a partial sync of an unchanged item keeps its updated_at too', async () => {
          const since = new Date().toISOString();
          await tick();
          const upsert = await admin('PATCH', `${dispensary()}/menu/items`, [MENU[0]]);
          expect(upsert.json()).toEqual({ created: [], updated: [1] });
          expect(await inventory({ since })).toEqual([]);
        });

        it('a new item appears in the next poll', async () => {
          const since = new Date().toISOString();
          await tick();
          await addItem(item(9, 'New', 'Flower', [price('gram', 1, 8, 2)]));
          expect((await inventory({ since })).map(keyOf)).toEqual(['9 1 gram']);
        });
      });

      it('an item made inactive through the sync API leaves the inventory on the next request', async () => {
        const patched = await admin('PATCH', `${dispensary()}/menu/items/1`, { active: false });
        expect(patched.statusCode, patched.body).toBe(200);
        expect((await inventory()).map(keyOf)).toEqual(['2 1 unit', '5 1 gram', '5 2 gram']);
      });

      it('stock set to null (no longer tracked) reads as in stock', async () => {
        await admin('PATCH', `${dispensary()}/inventory`, [
          { item_id: 1, unit: 'gram', amount: 3.5, stock: null },
        ]);
        const entry = (await inventory()).find((candidate) => keyOf(candidate) === '1 3.5 gram');
        expect(entry).toMatchObject({ stock: null, in_stock: true });
      });
    }

    if (form.id === 'b') {
      const menu = async (): Promise<FormBItem[]> => {
        const response = await runtime.app.inject({
          method: 'GET',
          url: '/menu',
          headers: formBHeaders(runtime.seed),
        });
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
        it('an offset must be percent-encoded in a URL (+ is a space): %2B works', async () => {
          const loaded = (await inventory())[0]!.updated_at;
          const earlier = new Date(Date.parse(loaded) - 1 + 3600_000).toISOString().replace('Z', '+01:00');
          expect((await inventory({ since: earlier })).length).toBe(4);
        });

        it('a poll after a stock change sees exactly that entry', async () => {
          const since = new Date().toISOString();
          await tick();
          const patched = await admin('PATCH', `${dispensary()}/inventory`, [
            { item_id: 1, unit: 'gram', amount: 1, stock: 0 },
            { item_id: 2, unit: 'unit', amount: 1, stock: 6 },
          ]);
          expect(patched.json()).toEqual({ updated: 2 });
          expect(stockRows(await inventory({ since: since }))).toEqual([
            ['1 1 gram', 0, false],
            ['2 1 unit', 6, true],
          ]);
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
          expect(await inventory({ since: since })).toEqual([]);
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
          await addItem(item(2, 'Untracked', 'Edible', [price('unit', 1, 5, 8)]));
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
    }
  });

  /** A client polling with `since` must see an item's entries again when the item comes back. */
  describe(`${form.title('/inventory')} with since, after an item is reactivated`, () => {
    let runtime: TestRuntime;
    beforeAll(async () => {
      runtime = await testRuntime({ menu: REACTIVATED_MENU });
    });
    afterAll(() => runtime.close());

    const changedSince = async (since: string) =>
      (await askInventory(form, runtime, { since })).map((entry) => entry.item_id);

    it('set-active true reports the item’s entries as changed', async () => {
      const since = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await runtime.services.menus.setActive(runtime.seed.dispensaryId, 1, true);
      expect(await changedSince(since)).toEqual([1]);
    });

    it('a full sync that turns an item back on reports it, and leaves unchanged entries alone', async () => {
      await runtime.services.menus.setActive(runtime.seed.dispensaryId, 1, false);
      const since = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const { menus } = runtime.services;
      await menus.replace(
        runtime.seed.dispensaryId,
        menus.validate(REACTIVATED_MENU.map((item) => ({ ...item, active: true }))),
      );
      expect(await changedSince(since)).toEqual([1]);
    });

    it('setting a stock level to the value it has is not a change', async () => {
      const since = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const { menus } = runtime.services;
      await menus.setStock(runtime.seed.dispensaryId, [{ item_id: 2, unit: 'gram', amount: 1, stock: 3 }]);
      expect(await changedSince(since)).toEqual([]);
      await menus.setStock(runtime.seed.dispensaryId, [{ item_id: 2, unit: 'gram', amount: 1, stock: 4 }]);
      expect(await changedSince(since)).toEqual([2]);
    });
  });
});
