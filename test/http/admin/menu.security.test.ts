import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, auditLog, expectNoSecrets, syncTestRuntime } from '../../helpers/admin.js';
import { describeAdminKeyRefusals, secretWatch, securityFixture } from '../../helpers/admin-roles.js';
import { expectError, formBHeaders, SQL_METACHARACTERS } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

describe('sync API: menu, security', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let scoped: AdminCall;
  let adminSecret: string;
  let other: { id: number; token: string };
  const watch = secretWatch();
  const { secrets, errorBodies, remember } = watch;
  const menuOf = async (id: number) => (await admin('GET', `/dispensaries/${id}/menu`)).json();
  /** Each dispensary's menu and the audit log length: what a refused request must leave alone. */
  const state = async () => ({
    one: await menuOf(runtime.seed.dispensaryId),
    two: await menuOf(other.id),
    audit: (await auditLog(runtime)).length,
  });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    // The same item ids as dispensary 1, so that an id alone never crosses dispensaries.
    ({ admin, adminSecret, other, scoped } = await securityFixture(
      runtime,
      { other: { name: 'Other Shop' }, otherMenu: SAMPLE_MENU, scopedName: 'shop-one' },
      secrets,
    ));
  });
  afterAll(() => runtime.close());

  const writes = (id: number) =>
    [
      ['GET', `/dispensaries/${id}/menu`, undefined],
      ['PUT', `/dispensaries/${id}/menu`, []],
      [
        'PATCH',
        `/dispensaries/${id}/menu/items`,
        [{ id: 3, name: 'Hijacked', product_type: 'Flower', prices: [] }],
      ],
      ['PATCH', `/dispensaries/${id}/menu/items/3`, { active: false }],
      ['DELETE', `/dispensaries/${id}/menu/items/3`, undefined],
    ] as const;

  describeAdminKeyRefusals({
    watch,
    context: () => ({ runtime, key: adminSecret, token: other.token }),
    routes: () => writes(other.id),
    state,
  });

  describe('403: a key scoped to dispensary 1 reaching for dispensary 2', () => {
    it.each([0, 1, 2, 3, 4])(
      'request %i of read, full sync, upsert, item patch, delete: 403, nothing changes',
      async (index) => {
        const before = await state();
        const [method, path, body] = writes(other.id)[index]!;
        const error = expectError(remember(await scoped(method, path, body)), 403, 'forbidden');
        expect(error.message).toContain(`limited to dispensary ${runtime.seed.dispensaryId}`);
        expect(await state()).toEqual(before);
      },
    );

    it('with an Idempotency-Key too', async () => {
      const before = await state();
      expectError(
        remember(
          await scoped('PUT', `/dispensaries/${other.id}/menu`, [], { 'idempotency-key': 'scoped-sync' }),
        ),
        403,
        'forbidden',
      );
      expect(await state()).toEqual(before);
    });

    it('its own dispensary: everything works, and dispensary 2 is untouched', async () => {
      const before = await menuOf(other.id);
      const own = runtime.seed.dispensaryId;
      expect((await scoped('GET', `/dispensaries/${own}/menu`)).statusCode).toBe(200);
      expect((await scoped('PATCH', `/dispensaries/${own}/menu/items/3`, { active: false })).statusCode).toBe(
        200,
      );
      expect((await scoped('DELETE', `/dispensaries/${own}/menu/items/7`)).statusCode).toBe(204);
      expect((await scoped('PUT', `/dispensaries/${own}/menu`, SAMPLE_MENU)).statusCode).toBe(200);
      expect(await menuOf(other.id)).toEqual(before);
      const menu = await runtime.app.inject({
        method: 'GET',
        url: '/menu',
        headers: formBHeaders({ ...runtime.seed, token: other.token }),
      });
      expect(menu.json().map((item: { id: number }) => item.id)).toEqual([1, 3, 7]);
    });
  });

  describe('item ids never cross dispensaries, even with a key for all', () => {
    it("deleting dispensary 1's item 1 leaves dispensary 2's item 1", async () => {
      expect(
        (await admin('DELETE', `/dispensaries/${runtime.seed.dispensaryId}/menu/items/1`)).statusCode,
      ).toBe(204);
      expect((await menuOf(other.id)).map((item: { id: number }) => item.id)).toContain(1);
      expect(
        (await admin('PUT', `/dispensaries/${runtime.seed.dispensaryId}/menu`, SAMPLE_MENU)).statusCode,
      ).toBe(200);
    });
  });

  describe('SQL metacharacters', () => {
    it.each(SQL_METACHARACTERS)('in the item id of the path: %j is 4xx, never 500', async (value) => {
      const path = `/dispensaries/${runtime.seed.dispensaryId}/menu/items/${encodeURIComponent(value)}`;
      for (const method of ['PATCH', 'DELETE'] as const) {
        const response = remember(
          await admin(method, path, method === 'PATCH' ? { active: false } : undefined),
        );
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
      }
    });

    it('in every text field of items: kept exactly, served exactly, or refused (NUL), never a 500', async () => {
      const texts = SQL_METACHARACTERS.filter((value) => value.trim() !== '');
      const items = texts.map((value, index) => ({
        id: 100 + index,
        name: value,
        brand: value,
        product_subtype: value,
        description: value,
        // A tag may not hold ';' (the CSV list separator); the other text fields may.
        flavors: [value.replaceAll(';', ',')],
        product_type: 'Flower',
        prices: [{ unit: 'gram', amount: 1, price: 1, stock: 1 }],
      }));
      const withoutNul = items.filter((item) => !item.name.includes('\0'));
      const refused = remember(await admin('PUT', `/dispensaries/${other.id}/menu`, items));
      expectError(refused, 400, 'invalid_request');
      const response = remember(await admin('PUT', `/dispensaries/${other.id}/menu`, withoutNul));
      expect(response.statusCode, response.body).toBe(200);
      const served = await runtime.app.inject({
        method: 'GET',
        url: '/menu',
        headers: formBHeaders({ ...runtime.seed, token: other.token }),
      });
      expect(served.json().map((item: { name: string; brand: string }) => [item.name, item.brand])).toEqual(
        withoutNul.map((item) => [item.name.trim(), item.brand.trim()]),
      );
      expect((await menuOf(runtime.seed.dispensaryId)).length).toBe(4);
    });

    it('in an inventory batch: 4xx, never 500, nothing applied', async () => {
      const before = await state();
      for (const value of SQL_METACHARACTERS) {
        const response = remember(
          await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}/inventory`, [
            { item_id: 3, unit: value, amount: 1, stock: 1 },
          ]),
        );
        expect(response.statusCode).toBe(400);
      }
      expect(await state()).toEqual(before);
    });
  });

  describe('no secret in the audit log or in an error', () => {
    it('the audit log holds names and counts only', async () => {
      expectNoSecrets(JSON.stringify(await auditLog(runtime)), secrets);
    });

    it('no error body carried a secret', () => {
      expect(errorBodies.length).toBeGreaterThan(30);
      expectNoSecrets(errorBodies.join('\n'), secrets);
    });
  });
});
