import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, syncTestRuntime } from '../../helpers/admin.js';
import type { TestRuntime } from '../../helpers/runtime.js';

const flower = (id: number, name: string, externalId: string) => ({
  id,
  name,
  product_type: 'Flower',
  external_id: externalId,
  prices: [{ unit: 'gram', amount: 1, price: 10, stock: 5 }],
});

describe('sync API: an item named by ext:<external_id>', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  const menu = () => `/dispensaries/${runtime.seed.dispensaryId}/menu`;
  const inventory = () => `/dispensaries/${runtime.seed.dispensaryId}/inventory`;

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    ({ call: admin } = await adminKey(runtime, 'all', 'pos'));
  });
  afterAll(() => runtime.close());
  beforeEach(async () => {
    const reset = await admin('PUT', menu(), [flower(1, 'A', 'pos-1'), flower(2, 'B', 'pos/2 b')]);
    expect(reset.statusCode, reset.body).toBe(200);
  });

  it('PATCH, stock and DELETE take ext:<external_id> (percent-encoded in the path)', async () => {
    const patched = await admin('PATCH', `${menu()}/items/ext:${encodeURIComponent('pos/2 b')}`, {
      active: false,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id: 2, active: false, external_id: 'pos/2 b' });
    const stock = await admin('PATCH', inventory(), [
      { item_id: 'ext:pos-1', unit: 'gram', amount: 1, stock: 7 },
    ]);
    expect(stock.statusCode, stock.body).toBe(200);
    expect(stock.json()).toEqual({ updated: 1 });
    const deleted = await admin('DELETE', `${menu()}/items/ext:pos-1`);
    expect(deleted.statusCode, deleted.body).toBe(204);
    const items = (await admin('GET', menu())).json() as { id: number; active: boolean }[];
    expect(items.map((item) => [item.id, item.active])).toEqual([[2, false]]);
  });

  it('an unknown one is a 404 naming it; a malformed one a 400; nothing changes', async () => {
    const before = (await admin('GET', menu())).body;
    for (const [method, path, body] of [
      ['PATCH', `${menu()}/items/ext:pos-9`, { active: false }],
      ['DELETE', `${menu()}/items/ext:pos-9`, undefined],
      ['PATCH', inventory(), [{ item_id: 'ext:pos-9', unit: 'gram', amount: 1, stock: 0 }]],
    ] as const) {
      const response = await admin(method, path, body);
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json().error.message).toContain('ext:pos-9');
    }
    const malformed = await admin('DELETE', `${menu()}/items/pos-1`);
    expect(malformed.statusCode).toBe(400);
    const badStock = await admin('PATCH', inventory(), [
      { item_id: 'pos-1', unit: 'gram', amount: 1, stock: 0 },
    ]);
    expect(badStock.statusCode).toBe(400);
    expect((await admin('GET', menu())).body).toBe(before);
  });
});
