import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SPEC_ONLY_PRICE_FIELDS, SPEC_ONLY_RECORD_FIELDS } from '../../domain/item-builder.js';
import { type AdminCall, adminKey, auditLog, generateMenu, syncTestRuntime } from '../../helpers/admin.js';
import { BLUE_DREAM } from '../../helpers/fixtures.js';
import { formABody, formBHeaders } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

interface Named {
  id: number;
  name: string;
  active?: boolean;
}

describe('sync API: menu, happy paths', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let keyName: string;
  const path = () => `/dispensaries/${runtime.seed.dispensaryId}/menu`;
  const formB = async (): Promise<Named[]> =>
    (await runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(runtime.seed) })).json();
  const formA = async (active?: boolean): Promise<Named[]> =>
    (
      await runtime.app.inject({
        method: 'POST',
        url: '/menu',
        payload: { ...formABody(runtime.seed), ...(active === undefined ? {} : { active }) },
      })
    ).json();
  const ids = (items: Named[]) => items.map((item) => item.id);

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    ({ call: admin, name: keyName } = await adminKey(runtime, 'all', 'pos'));
  });
  afterAll(() => runtime.close());
  beforeEach(async () => {
    const reset = await admin('PUT', path(), SAMPLE_MENU);
    expect(reset.statusCode, reset.body).toBe(200);
  });

  describe('GET: the whole menu as canonical items, active and inactive', () => {
    it('every item, ordered by id, every canonical field', async () => {
      const response = await admin('GET', path());
      expect(response.statusCode).toBe(200);
      const items = response.json();
      expect(ids(items)).toEqual([1, 2, 3, 7]);
      // Every canonical field: the ones the sample sets, the others null (or empty); and what reads
      // derive, each price entry with the price now (no special: the price as written).
      expect(items[2]).toEqual({
        ...BLUE_DREAM,
        cbn: null,
        total_thc: null,
        total_cbd: null,
        active: true,
        ...SPEC_ONLY_RECORD_FIELDS,
        potency: { thc: null, cbd: null },
        prices: [
          { ...BLUE_DREAM.prices[0], ...SPEC_ONLY_PRICE_FIELDS, net_weight_g: 1, price_per_gram: 12 },
          { ...BLUE_DREAM.prices[1], ...SPEC_ONLY_PRICE_FIELDS, net_weight_g: 3.5, price_per_gram: 11 },
        ].map((price) => ({
          ...price,
          effective_price: price.price,
          special: null,
          effective_med_price: null,
          med_special: null,
        })),
      });
      expect(items[1]).toMatchObject({ id: 2, active: false });
    });

    it('what GET answers, PUT takes back unchanged', async () => {
      const before = (await admin('GET', path())).json();
      expect((await admin('PUT', path(), before)).statusCode).toBe(200);
      expect((await admin('GET', path())).json()).toEqual(before);
    });
  });

  describe('PUT: full sync replaces the whole menu', () => {
    it('answers the counts; integrators see only the new menu on the next request', async () => {
      expect(ids(await formB())).toEqual([1, 3, 7]);
      const menu = [
        {
          id: 10,
          name: 'New One',
          product_type: 'Flower',
          prices: [{ unit: 'gram', amount: 1, price: 9, stock: 3 }],
        },
        { id: 11, name: 'New Two', product_type: 'Edible', active: false, prices: [] },
      ];
      const response = await admin('PUT', path(), menu);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        dispensary_id: runtime.seed.dispensaryId,
        items: 2,
        active_items: 1,
        price_entries: 1,
      });
      expect(ids(await formB())).toEqual([10]);
      expect(ids(await formA(false))).toEqual([10, 11]);
    });

    it('accepts Form A and Form B field names too', async () => {
      const response = await admin('PUT', path(), [
        {
          id: 1,
          name: 'Form A spelled',
          brand_name: 'Acme',
          product_type: 'Wax',
          product_prices: [{ unit: 'gram', amount: 1, price: 50 }],
        },
        {
          id: 2,
          name: 'Form B spelled',
          brand: 'Beta',
          type: 'Vape',
          variants: [{ unit: 'unit', amount: 1, price: 25, stock: 2 }],
        },
      ]);
      expect(response.statusCode, response.body).toBe(200);
      const items = (await admin('GET', path())).json();
      expect(
        items.map((item: { brand: string; product_type: string }) => [item.brand, item.product_type]),
      ).toEqual([
        ['Acme', 'Wax'],
        ['Beta', 'Vape'],
      ]);
    });

    it('items without an id get new ids after every id used before', async () => {
      const response = await admin('PUT', path(), [
        { name: 'No id A', product_type: 'Gear', prices: [] },
        { name: 'No id B', product_type: 'Gear', prices: [] },
      ]);
      expect(response.statusCode).toBe(200);
      const items = (await admin('GET', path())).json();
      expect(items.map((item: Named) => [item.id, item.name])).toEqual([
        [8, 'No id A'],
        [9, 'No id B'],
      ]);
    });

    it('an empty list empties the menu', async () => {
      const response = await admin('PUT', path(), []);
      expect(response.json()).toMatchObject({ items: 0, active_items: 0, price_entries: 0 });
      expect(await formB()).toEqual([]);
    });

    it('5,000 items in one request (several MiB) are accepted and served', async () => {
      const menu = generateMenu(5_000, 'bulk');
      const payload = JSON.stringify(menu);
      expect(payload.length).toBeGreaterThan(1024 * 1024);
      const response = await admin('PUT', path(), payload);
      expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
      expect(response.json()).toEqual({
        dispensary_id: runtime.seed.dispensaryId,
        items: 5_000,
        active_items: 5_000,
        price_entries: 10_000,
      });
      const served = await formB();
      expect(served.length).toBe(5_000);
      expect(served[4_999]).toMatchObject({ id: 5_000, name: 'bulk-4999' });
    }, 60_000);

    it('is recorded in the audit log with its counts', async () => {
      await admin('PUT', path(), SAMPLE_MENU.slice(0, 2));
      const last = (await auditLog(runtime)).at(-1)!;
      expect(last).toMatchObject({
        actor: `key:${keyName}`,
        dispensaryId: runtime.seed.dispensaryId,
        action: 'menu.replace',
        detail: { items: 2, price_entries: 3 },
      });
    });
  });

  describe('PATCH menu/items: partial sync by id', () => {
    it('answers which ids were created and which replaced; other items stay', async () => {
      const response = await admin('PATCH', `${path()}/items`, [
        {
          id: 3,
          name: 'Blue Dream (new crop)',
          product_type: 'Flower',
          prices: [{ unit: 'gram', amount: 1, price: 13, stock: 20 }],
        },
        { id: 20, name: 'Brand New', product_type: 'Tincture', prices: [] },
        { name: 'Given an id', product_type: 'Gear', prices: [] },
      ]);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ created: [20, 21], updated: [3] });
      const items = (await admin('GET', path())).json();
      expect(ids(items)).toEqual([1, 2, 3, 7, 20, 21]);
      expect(items.find((item: Named) => item.id === 3)).toMatchObject({
        name: 'Blue Dream (new crop)',
        brand: '',
        prices: [{ unit: 'gram', amount: 1, price: 13, stock: 20 }],
      });
      expect(ids(await formB())).toEqual([1, 3, 7, 20, 21]);
    });

    it('an empty list changes nothing', async () => {
      const before = (await admin('GET', path())).json();
      expect((await admin('PATCH', `${path()}/items`, [])).json()).toEqual({ created: [], updated: [] });
      expect((await admin('GET', path())).json()).toEqual(before);
    });
  });

  describe('PATCH menu/items/{id}: some fields of one item', () => {
    it('{active: false}: gone from Form B and from Form A by default, listed in Form A with active false', async () => {
      const response = await admin('PATCH', `${path()}/items/3`, { active: false });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: 3, name: 'Blue Dream', active: false });
      expect(ids(await formB())).toEqual([1, 7]);
      expect(ids(await formA())).toEqual([1, 7]);
      const all = await formA(false);
      expect(all.find((item) => item.id === 3)).toMatchObject({ name: 'Blue Dream', active: false });
    });

    it('{active: true} brings an item back at once', async () => {
      await admin('PATCH', `${path()}/items/2`, { active: true });
      expect(ids(await formB())).toEqual([1, 2, 3, 7]);
    });

    it('other fields are kept; any form’s field name works', async () => {
      const response = await admin('PATCH', `${path()}/items/3`, { brand_name: 'Renamed Farms', thc: 19 });
      expect(response.statusCode, response.body).toBe(200);
      const item = (await admin('GET', path())).json().find((candidate: Named) => candidate.id === 3);
      expect(item).toMatchObject({
        brand: 'Renamed Farms',
        thc: 19,
        name: 'Blue Dream',
        flavors: ['Berry'],
        prices: [
          { unit: 'gram', amount: 1, price: 12, stock: 10 },
          { unit: 'ounce', amount: 0.125, price: 38.5, stock: 0 },
        ],
      });
      // The item as written, which the menu read shows with each entry's price now.
      expect(item).toMatchObject(response.json());
    });
  });

  describe('DELETE menu/items/{id}', () => {
    it('204 without a body; the item is gone everywhere at once', async () => {
      const response = await admin('DELETE', `${path()}/items/7`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(ids(await formB())).toEqual([1, 3]);
      expect(ids((await admin('GET', path())).json())).toEqual([1, 2, 3]);
      const inventory = await runtime.app.inject({
        method: 'GET',
        url: '/inventory',
        headers: formBHeaders(runtime.seed),
      });
      expect(inventory.json().map((entry: { item_id: number }) => entry.item_id)).not.toContain(7);
    });
  });

  describe('Idempotency-Key', () => {
    it('a full sync repeated: the first answer, replayed, and nothing written again', async () => {
      const headers = { 'idempotency-key': 'sync-2026-11-25T10:00' };
      const menu = SAMPLE_MENU.slice(0, 3);
      const first = await admin('PUT', path(), menu, headers);
      expect(first.statusCode).toBe(200);
      const audited = (await auditLog(runtime)).length;
      // The dispensary changes something else in between; the replay must not undo it.
      await admin('PATCH', `${path()}/items/1`, { name: 'Changed Since' });
      const changed = (await admin('GET', path())).json();
      const again = await admin('PUT', path(), menu, headers);
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      expect((await auditLog(runtime)).length).toBe(audited + 1);
      expect((await admin('GET', path())).json()).toEqual(changed);
    });

    it('an upsert and an item patch repeated: replayed the same way', async () => {
      const upsert = [{ id: 30, name: 'Once', product_type: 'Gear', prices: [] }];
      const first = await admin('PATCH', `${path()}/items`, upsert, { 'idempotency-key': 'upsert-1' });
      const again = await admin('PATCH', `${path()}/items`, upsert, { 'idempotency-key': 'upsert-1' });
      expect(first.json()).toEqual({ created: [30], updated: [] });
      expect(again.json()).toEqual(first.json());
      expect(again.headers['idempotent-replayed']).toBe('true');
      const patch = await admin(
        'PATCH',
        `${path()}/items/30`,
        { active: false },
        { 'idempotency-key': 'patch-1' },
      );
      const audited = (await auditLog(runtime)).length;
      const patchAgain = await admin(
        'PATCH',
        `${path()}/items/30`,
        { active: false },
        { 'idempotency-key': 'patch-1' },
      );
      expect(patchAgain.json()).toEqual(patch.json());
      expect(patchAgain.headers['idempotent-replayed']).toBe('true');
      expect((await auditLog(runtime)).length).toBe(audited);
    });

    it('the same request twice at the same moment runs once', async () => {
      const headers = { 'idempotency-key': 'concurrent-1' };
      const upsert = [{ id: 40, name: 'Raced', product_type: 'Gear', prices: [] }];
      const audited = (await auditLog(runtime)).length;
      const [one, two] = await Promise.all([
        admin('PATCH', `${path()}/items`, upsert, headers),
        admin('PATCH', `${path()}/items`, upsert, headers),
      ]);
      expect([one.statusCode, two.statusCode]).toEqual([200, 200]);
      expect(one.json()).toEqual(two.json());
      expect(
        [one.headers['idempotent-replayed'], two.headers['idempotent-replayed']].filter(Boolean),
      ).toEqual(['true']);
      expect((await auditLog(runtime)).length).toBe(audited + 1);
    });
  });
});
