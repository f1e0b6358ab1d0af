import { describe, expect, it } from 'vitest';
import { auditLog, expectNoSecrets } from '../../helpers/admin.js';
import { describeRefusalsOnOther, sampleMenuSuite } from '../../helpers/admin-roles.js';
import { expectError, formBHeaders, SQL_METACHARACTERS } from '../../helpers/http.js';
import { SAMPLE_MENU } from '../../helpers/runtime.js';

describe('sync API: menu, security', () => {
  // The same item ids as dispensary 1, so that an id alone never crosses dispensaries.
  const suite = sampleMenuSuite('Other Shop', 'shop-one');
  const { secrets, errorBodies, remember } = suite.watch;
  const menuOf = async (id: number) => (await suite.admin('GET', `/dispensaries/${id}/menu`)).json();
  /** Each dispensary's menu and the audit log length: what a refused request must leave alone. */
  const state = async () => ({
    one: await menuOf(suite.runtime.seed.dispensaryId),
    two: await menuOf(suite.other.id),
    audit: (await auditLog(suite.runtime)).length,
  });

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

  describeRefusalsOnOther(suite, writes, { state });

  describe('403: a key scoped to dispensary 1 reaching for dispensary 2', () => {
    it.each([0, 1, 2, 3, 4])(
      'request %i of read, full sync, upsert, item patch, delete: 403, nothing changes',
      async (index) => {
        const before = await state();
        const [method, path, body] = writes(suite.other.id)[index]!;
        const error = expectError(remember(await suite.scoped(method, path, body)), 403, 'forbidden');
        expect(error.message).toContain(`limited to dispensary ${suite.runtime.seed.dispensaryId}`);
        expect(await state()).toEqual(before);
      },
    );

    it('with an Idempotency-Key too', async () => {
      const before = await state();
      expectError(
        remember(
          await suite.scoped('PUT', `/dispensaries/${suite.other.id}/menu`, [], {
            'idempotency-key': 'scoped-sync',
          }),
        ),
        403,
        'forbidden',
      );
      expect(await state()).toEqual(before);
    });

    it('its own dispensary: everything works, and dispensary 2 is untouched', async () => {
      const before = await menuOf(suite.other.id);
      const own = suite.runtime.seed.dispensaryId;
      expect((await suite.scoped('GET', `/dispensaries/${own}/menu`)).statusCode).toBe(200);
      expect(
        (await suite.scoped('PATCH', `/dispensaries/${own}/menu/items/3`, { active: false })).statusCode,
      ).toBe(200);
      expect((await suite.scoped('DELETE', `/dispensaries/${own}/menu/items/7`)).statusCode).toBe(204);
      expect((await suite.scoped('PUT', `/dispensaries/${own}/menu`, SAMPLE_MENU)).statusCode).toBe(200);
      expect(await menuOf(suite.other.id)).toEqual(before);
      const menu = await suite.runtime.app.inject({
        method: 'GET',
        url: '/menu',
        headers: formBHeaders({ ...suite.runtime.seed, token: suite.other.token }),
      });
      expect(menu.json().map((item: { id: number }) => item.id)).toEqual([1, 3, 7]);
    });
  });

  describe('item ids never cross dispensaries, even with a key for all', () => {
    it("deleting dispensary 1's item 1 leaves dispensary 2's item 1", async () => {
      expect(
        (await suite.admin('DELETE', `/dispensaries/${suite.runtime.seed.dispensaryId}/menu/items/1`))
          .statusCode,
      ).toBe(204);
      expect((await menuOf(suite.other.id)).map((item: { id: number }) => item.id)).toContain(1);
      expect(
        (await suite.admin('PUT', `/dispensaries/${suite.runtime.seed.dispensaryId}/menu`, SAMPLE_MENU))
          .statusCode,
      ).toBe(200);
    });
  });

  describe('SQL metacharacters', () => {
    it.each(SQL_METACHARACTERS)('in the item id of the path: %j is 4xx, never 500', async (value) => {
      const path = `/dispensaries/${suite.runtime.seed.dispensaryId}/menu/items/${encodeURIComponent(value)}`;
      for (const method of ['PATCH', 'DELETE'] as const) {
        const response = remember(
          await suite.admin(method, path, method === 'PATCH' ? { active: false } : undefined),
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
      const refused = remember(await suite.admin('PUT', `/dispensaries/${suite.other.id}/menu`, items));
      expectError(refused, 400, 'invalid_request');
      const response = remember(await suite.admin('PUT', `/dispensaries/${suite.other.id}/menu`, withoutNul));
      expect(response.statusCode, response.body).toBe(200);
      const served = await suite.runtime.app.inject({
        method: 'GET',
        url: '/menu',
        headers: formBHeaders({ ...suite.runtime.seed, token: suite.other.token }),
      });
      expect(served.json().map((item: { name: string; brand: string }) => [item.name, item.brand])).toEqual(
        withoutNul.map((item) => [item.name.trim(), item.brand.trim()]),
      );
      expect((await menuOf(suite.runtime.seed.dispensaryId)).length).toBe(4);
    });

    it('in an inventory batch: 4xx, never 500, nothing applied', async () => {
      const before = await state();
      for (const value of SQL_METACHARACTERS) {
        const response = remember(
          await suite.admin('PATCH', `/dispensaries/${suite.runtime.seed.dispensaryId}/inventory`, [
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
      expectNoSecrets(JSON.stringify(await auditLog(suite.runtime)), secrets);
    });

    it('no error body carried a secret', () => {
      expect(errorBodies.length).toBeGreaterThan(30);
      expectNoSecrets(errorBodies.join('\n'), secrets);
    });
  });
});
