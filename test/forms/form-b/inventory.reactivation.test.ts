import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formBHeaders } from '../../helpers/http.js';
import { type TestRuntime, testRuntime } from '../../helpers/runtime.js';

const MENU = [
  {
    id: 1,
    name: 'Seasonal',
    product_type: 'Flower',
    active: false,
    prices: [{ unit: 'gram', amount: 1, price: 9, stock: 7 }],
  },
  {
    id: 2,
    name: 'Steady',
    product_type: 'Flower',
    prices: [{ unit: 'gram', amount: 1, price: 10, stock: 3 }],
  },
];

/** A client polling with `since` must see an item's entries again when the item comes back. */
describe('GET /inventory?since= after an item is reactivated', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: MENU });
  });
  afterAll(() => runtime.close());

  const changedSince = async (since: string) => {
    const response = await runtime.app.inject({
      method: 'GET',
      url: `/inventory?since=${encodeURIComponent(since)}`,
      headers: formBHeaders(runtime.seed),
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { item_id: number }[]).map((entry) => entry.item_id);
  };

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
      menus.validate(MENU.map((item) => ({ ...item, active: true }))),
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
