import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, syncTestRuntime } from '../../helpers/admin.js';
import { expectError, expectInvalid } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

describe('sync API: menu, errors', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  const path = () => `/dispensaries/${runtime.seed.dispensaryId}/menu`;
  const menu = async () => (await admin('GET', path())).json();

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    admin = (await adminKey(runtime)).call;
  });
  afterAll(() => runtime.close());
  beforeEach(async () => {
    expect((await admin('PUT', path(), SAMPLE_MENU)).statusCode).toBe(200);
  });

  describe('400: invalid items, every problem named by index and field, nothing changes', () => {
    it.each(['PUT', 'PATCH'] as const)('%s with three bad items among good ones', async (method) => {
      const before = await menu();
      const audited = (await auditLog(runtime)).length;
      const response = await admin(method, method === 'PUT' ? path() : `${path()}/items`, [
        { id: 50, name: 'Fine', product_type: 'Flower', prices: [] },
        { id: 51, name: '', product_type: 'Flower', prices: [] },
        { id: 52, name: 'Bad type', product_type: 'Mushroom', prices: [] },
        {
          id: 53,
          name: 'Bad price',
          product_type: 'Flower',
          prices: [{ unit: 'kilo', amount: -1, price: 'free' }],
        },
      ]);
      const error = expectError(response, 400, 'invalid_request');
      const fields = error.problems!.map((problem) => problem.field);
      expect(fields).toEqual(expect.arrayContaining(['[1].name', '[2].product_type']));
      expect(fields.some((field) => field.startsWith('[3].prices[0]'))).toBe(true);
      expect(fields.some((field) => field.startsWith('[0]'))).toBe(false);
      expect(error.message).toContain('nothing was changed');
      expect(await menu()).toEqual(before);
      expect((await auditLog(runtime)).length).toBe(audited);
    });

    it('the same id twice in one full sync', async () => {
      const before = await menu();
      const error = expectError(
        await admin('PUT', path(), [
          { id: 5, name: 'One', product_type: 'Flower', prices: [] },
          { id: 5, name: 'Two', product_type: 'Flower', prices: [] },
        ]),
        400,
        'invalid_request',
      );
      expect(error.problems!.some((problem) => problem.field.startsWith('[1]'))).toBe(true);
      expect(await menu()).toEqual(before);
    });

    it('an unknown field is named', async () => {
      const error = expectError(
        await admin('PUT', path(), [
          { id: 1, name: 'X', product_type: 'Flower', prices: [], colour: 'green' },
        ]),
        400,
        'invalid_request',
      );
      expect(error.problems).toContainEqual({ field: '[0].colour', message: 'is not a known field' });
    });

    it.each([
      ['an object', { items: [] }],
      ['a string', 'menu'],
      ['null', null],
    ])('a body that is %s: "must be a JSON array"', async (_label, body) => {
      const before = await menu();
      for (const [method, target] of [
        ['PUT', path()],
        ['PATCH', `${path()}/items`],
      ] as const) {
        expectInvalid(await admin(method, target, JSON.stringify(body)), [
          { field: 'body', message: 'must be a JSON array' },
        ]);
      }
      expect(await menu()).toEqual(before);
    });

    it('malformed JSON', async () => {
      expectError(await admin('PUT', path(), '[{"id": 1,'), 400, 'invalid_request');
    });

    it('no body at all', async () => {
      expectError(await admin('PUT', path()), 400, 'invalid_request');
    });
  });

  describe('400: an item patch that does not make a valid item', () => {
    it.each([
      [{ active: 'no' }, 'active'],
      [{ name: '' }, 'name'],
      [{ thc: 101 }, 'thc'],
      [{ product_type: 'Pizza' }, 'product_type'],
      [{ prices: 'free' }, 'prices'],
      [{ colour: 'green' }, 'colour'],
    ])('%j names %s, and the item is unchanged', async (patch, field) => {
      const before = await menu();
      const error = expectError(await admin('PATCH', `${path()}/items/3`, patch), 400, 'invalid_request');
      expect(error.problems!.map((problem) => problem.field)).toContain(field);
      expect(await menu()).toEqual(before);
    });

    it('the id cannot change', async () => {
      const error = expectError(await admin('PATCH', `${path()}/items/3`, { id: 4 }), 400, 'invalid_request');
      expect(error.message).toContain('id');
      expect((await menu()).map((item: { id: number }) => item.id)).toEqual([1, 2, 3, 7]);
    });

    it('a body that is not an object', async () => {
      expectInvalid(await admin('PATCH', `${path()}/items/3`, [{ active: false }]), [
        { field: 'body', message: 'must be a JSON object' },
      ]);
    });
  });

  describe('404', () => {
    it.each([
      ['GET', '/dispensaries/999/menu', undefined],
      ['PUT', '/dispensaries/999/menu', []],
      ['PATCH', '/dispensaries/999/menu/items', []],
      ['PATCH', '/dispensaries/999/menu/items/1', { active: false }],
      ['DELETE', '/dispensaries/999/menu/items/1', undefined],
    ] as const)('%s %s: no such dispensary', async (method, target, body) => {
      expectError(await admin(method, target, body), 404, 'not_found');
    });

    it.each([
      ['PATCH', { active: false }],
      ['DELETE', undefined],
    ] as const)('%s of an item that does not exist', async (method, body) => {
      const before = await menu();
      const error = expectError(await admin(method, `${path()}/items/99`, body), 404, 'not_found');
      expect(error.message).toContain('no item 99');
      expect(await menu()).toEqual(before);
    });

    it('deleting an item twice: 204, then 404', async () => {
      expect((await admin('DELETE', `${path()}/items/7`)).statusCode).toBe(204);
      expectError(await admin('DELETE', `${path()}/items/7`), 404, 'not_found');
    });
  });

  describe('400: a malformed id in the path', () => {
    it.each(['0', 'abc', '-3', '1.0', '99999999999'])('item id %j', async (bad) => {
      for (const method of ['PATCH', 'DELETE'] as const) {
        const error = expectError(
          await admin(method, `${path()}/items/${bad}`, method === 'PATCH' ? { active: false } : undefined),
          400,
          'invalid_request',
        );
        expect(error.problems?.[0]?.field).toBe('item_id');
      }
    });
  });

  describe('413: payload limits', () => {
    it('a full sync over the default 16 MiB', async () => {
      const before = await menu();
      const payload = `[${' '.repeat(16 * 1024 * 1024)}]`;
      const error = expectError(await admin('PUT', path(), payload), 413, 'payload_too_large');
      expect(error.message).toContain('larger than this endpoint accepts');
      expect(await menu()).toEqual(before);
    });

    it('the public endpoints keep their own, smaller limit', async () => {
      const response = await runtime.app.inject({
        method: 'POST',
        url: '/menu',
        payload: { username: 'x', password: 'y', collective_token: 'z', padding: 'p'.repeat(100 * 1024) },
      });
      expectError(response, 413, 'payload_too_large');
    });

    describe('a configured limit', () => {
      let small: TestRuntime;
      let call: AdminCall;
      beforeAll(async () => {
        small = await syncTestRuntime({ config: { adminBodyLimit: 4 * 1024 } });
        call = (await adminKey(small)).call;
      });
      afterAll(() => small.close());

      it('refuses a body over it on every write, and reads one under it', async () => {
        const id = small.seed.dispensaryId;
        const big = [
          { id: 1, name: 'Big', description: 'x'.repeat(5 * 1024), product_type: 'Flower', prices: [] },
        ];
        expectError(await call('PUT', `/dispensaries/${id}/menu`, big), 413, 'payload_too_large');
        expectError(await call('PATCH', `/dispensaries/${id}/menu/items`, big), 413, 'payload_too_large');
        expectError(
          await call(
            'PATCH',
            `/dispensaries/${id}/inventory`,
            Array(200).fill({ item_id: 1, unit: 'gram', amount: 1, stock: 1 }),
          ),
          413,
          'payload_too_large',
        );
        const fits = [
          { id: 1, name: 'Fits', description: 'x'.repeat(3 * 1024), product_type: 'Flower', prices: [] },
        ];
        expect((await call('PUT', `/dispensaries/${id}/menu`, fits)).statusCode).toBe(200);
      });
    });
  });

  describe('Idempotency-Key', () => {
    it('the same key with another menu: 422, and the menu is not replaced', async () => {
      const headers = { 'idempotency-key': 'full-sync-1' };
      expect((await admin('PUT', path(), SAMPLE_MENU.slice(0, 1), headers)).statusCode).toBe(200);
      const before = await menu();
      const error = expectError(await admin('PUT', path(), SAMPLE_MENU, headers), 422, 'unprocessable');
      expect(error.message).toContain('Idempotency-Key');
      expect(await menu()).toEqual(before);
    });

    it('the same key on another item: 422, and that item is unchanged', async () => {
      const headers = { 'idempotency-key': 'hide-item' };
      expect((await admin('PATCH', `${path()}/items/3`, { active: false }, headers)).statusCode).toBe(200);
      expectError(
        await admin('PATCH', `${path()}/items/7`, { active: false }, headers),
        422,
        'unprocessable',
      );
      expect((await menu()).find((item: { id: number }) => item.id === 7).active).toBe(true);
    });
  });
});
