import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, stockOf, syncTestRuntime } from '../../helpers/admin.js';
import { formABody, formBHeaders } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

describe('sync API: PATCH /dispensaries/{id}/inventory, happy paths', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let keyName: string;
  const path = () => `/dispensaries/${runtime.seed.dispensaryId}/inventory`;
  const stock = (itemId: number, unit: string, amount: number) =>
    stockOf(runtime, runtime.seed.dispensaryId, itemId, unit, amount);

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    ({ call: admin, name: keyName } = await adminKey(runtime, 'all', 'register-1'));
  });
  afterAll(() => runtime.close());
  beforeEach(async () => {
    await runtime.services.menus.replace(
      runtime.seed.dispensaryId,
      runtime.services.menus.validate(SAMPLE_MENU),
    );
  });

  it('sets many stock levels at once and answers how many', async () => {
    const response = await admin('PATCH', path(), [
      { item_id: 3, unit: 'gram', amount: 1, stock: 4 },
      { item_id: 3, unit: 'ounce', amount: 0.125, stock: 12 },
      { item_id: 1, unit: 'unit', amount: 1, stock: 0 },
      { item_id: 7, unit: 'gram', amount: 0.5, stock: 2.5 },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ updated: 4 });
    expect(await stock(3, 'gram', 1)).toBe(4);
    expect(await stock(3, 'ounce', 0.125)).toBe(12);
    expect(await stock(1, 'unit', 1)).toBe(0);
    expect(await stock(7, 'gram', 0.5)).toBe(2.5);
  });

  it('null stops tracking; 0 is out of stock', async () => {
    await admin('PATCH', path(), [
      { item_id: 3, unit: 'gram', amount: 1, stock: null },
      { item_id: 7, unit: 'gram', amount: 0.5, stock: 0 },
    ]);
    expect(await stock(3, 'gram', 1)).toBeNull();
    const inventory = await runtime.app.inject({
      method: 'GET',
      url: '/inventory',
      headers: formBHeaders(runtime.seed),
    });
    const byKey = Object.fromEntries(
      inventory
        .json()
        .map((entry: { item_id: number; unit: string; amount: number; in_stock: boolean }) => [
          `${entry.item_id} ${entry.amount} ${entry.unit}`,
          entry.in_stock,
        ]),
    );
    expect(byKey['3 1 gram']).toBe(true);
    expect(byKey['7 0.5 gram']).toBe(false);
  });

  it('prices and everything else of the items stay as they were', async () => {
    const before = (await admin('GET', `/dispensaries/${runtime.seed.dispensaryId}/menu`)).json();
    await admin('PATCH', path(), [{ item_id: 3, unit: 'gram', amount: 1, stock: 99 }]);
    const after = (await admin('GET', `/dispensaries/${runtime.seed.dispensaryId}/menu`)).json();
    before[2].prices[0].stock = 99;
    expect(after).toEqual(before);
  });

  it('the stock of an inactive item can be set; it shows once the item is active', async () => {
    await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}/menu/items`, [
      {
        id: 2,
        name: 'Hidden Kush',
        product_type: 'Flower',
        active: false,
        prices: [{ unit: 'gram', amount: 1, price: 10, stock: 1 }],
      },
    ]);
    expect(
      (await admin('PATCH', path(), [{ item_id: 2, unit: 'gram', amount: 1, stock: 8 }])).statusCode,
    ).toBe(200);
    expect(await stock(2, 'gram', 1)).toBe(8);
  });

  it('an empty batch changes nothing', async () => {
    const response = await admin('PATCH', path(), []);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ updated: 0 });
  });

  it('is visible on the very next request on every read endpoint', async () => {
    const formA = () =>
      runtime.app.inject({ method: 'POST', url: '/inventory', payload: formABody(runtime.seed) });
    const formB = () =>
      runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(runtime.seed) });
    // Read first so that any cache is warm.
    await formA();
    await formB();
    await admin('PATCH', path(), [{ item_id: 7, unit: 'gram', amount: 0.5, stock: 31 }]);
    expect((await formA()).json().find((entry: { item_id: number }) => entry.item_id === 7).stock).toBe(31);
    expect((await formB()).json().find((item: { id: number }) => item.id === 7).variants[0].stock).toBe(31);
  });

  it('is in the audit log with the key name and the count', async () => {
    await admin('PATCH', path(), [
      { item_id: 3, unit: 'gram', amount: 1, stock: 1 },
      { item_id: 1, unit: 'unit', amount: 1, stock: 1 },
    ]);
    expect((await auditLog(runtime)).at(-1)).toMatchObject({
      actor: `key:${keyName}`,
      dispensaryId: runtime.seed.dispensaryId,
      action: 'inventory.update',
      detail: { price_entries: 2 },
    });
  });

  describe('Idempotency-Key', () => {
    it('a repeated batch: the first answer, replayed, and the stock is not set again', async () => {
      const headers = { 'idempotency-key': 'sale-0001' };
      const batch = [{ item_id: 3, unit: 'gram', amount: 1, stock: 7 }];
      const first = await admin('PATCH', path(), batch, headers);
      expect(first.json()).toEqual({ updated: 1 });
      // A later sale sets another level; the retried first batch must not undo it.
      await admin('PATCH', path(), [{ item_id: 3, unit: 'gram', amount: 1, stock: 6 }]);
      const audited = (await auditLog(runtime)).length;
      const again = await admin('PATCH', path(), batch, headers);
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      expect(await stock(3, 'gram', 1)).toBe(6);
      expect((await auditLog(runtime)).length).toBe(audited);
    });

    it('the same key with another batch: 422 and nothing applied', async () => {
      const headers = { 'idempotency-key': 'sale-0002' };
      await admin('PATCH', path(), [{ item_id: 3, unit: 'gram', amount: 1, stock: 5 }], headers);
      const response = await admin(
        'PATCH',
        path(),
        [{ item_id: 3, unit: 'gram', amount: 1, stock: 4 }],
        headers,
      );
      expect(response.statusCode).toBe(422);
      expect(await stock(3, 'gram', 1)).toBe(5);
    });
  });
});
