import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, syncTestRuntime } from '../../helpers/admin.js';
import { expectError, expectInvalid } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

const GOOD = [
  { item_id: 3, unit: 'gram', amount: 1, stock: 1 },
  { item_id: 3, unit: 'ounce', amount: 0.125, stock: 2 },
  { item_id: 7, unit: 'gram', amount: 0.5, stock: 3 },
];

describe('sync API: PATCH /dispensaries/{id}/inventory, errors', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  const path = () => `/dispensaries/${runtime.seed.dispensaryId}/inventory`;
  /** Every price entry's stock, and the audit log length: a refused batch changes neither. */
  const state = async () => ({
    menu: (await admin('GET', `/dispensaries/${runtime.seed.dispensaryId}/menu`)).json(),
    audit: (await auditLog(runtime)).length,
  });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    admin = (await adminKey(runtime)).call;
  });
  afterAll(() => runtime.close());

  describe('422: a batch with an entry that matches no price entry: nothing applied, the answer says which', () => {
    it.each([
      ['an item that does not exist', { item_id: 99, unit: 'gram', amount: 1, stock: 5 }, 'item 99, 1 gram'],
      [
        'an amount the item does not sell',
        { item_id: 3, unit: 'gram', amount: 3.5, stock: 5 },
        'item 3, 3.5 gram',
      ],
      ['a unit the item does not sell', { item_id: 1, unit: 'gram', amount: 1, stock: 5 }, 'item 1, 1 gram'],
      ['an item without prices', { item_id: 2, unit: 'gram', amount: 1, stock: 5 }, 'item 2, 1 gram'],
    ])('%s, as the last of four', async (_label, bad, described) => {
      const before = await state();
      const response = await admin('PATCH', path(), [...GOOD, bad]);
      const error = expectError(response, 422, 'unprocessable');
      expect(error.problems).toEqual([
        { field: '[3]', message: `matches no price entry (${described}); nothing was applied` },
      ]);
      expect(error.message).toContain('[3]');
      expect(await state()).toEqual(before);
    });

    it('several bad entries: each index named', async () => {
      const before = await state();
      const error = expectError(
        await admin('PATCH', path(), [
          { item_id: 50, unit: 'unit', amount: 1, stock: 1 },
          GOOD[0],
          { item_id: 51, unit: 'unit', amount: 1, stock: 1 },
        ]),
        422,
        'unprocessable',
      );
      expect(error.problems!.map((problem) => problem.field)).toEqual(['[0]', '[2]']);
      expect(await state()).toEqual(before);
    });

    it('an item of another dispensary (same id elsewhere) does not match', async () => {
      const created = (await admin('POST', '/dispensaries', { name: 'Elsewhere' })).json();
      await admin('PUT', `/dispensaries/${created.id}/menu`, [
        {
          id: 40,
          name: 'Only there',
          product_type: 'Flower',
          prices: [{ unit: 'gram', amount: 1, price: 1, stock: 1 }],
        },
      ]);
      const before = await state();
      const error = expectError(
        await admin('PATCH', path(), [{ item_id: 40, unit: 'gram', amount: 1, stock: 9 }]),
        422,
        'unprocessable',
      );
      expect(error.problems![0]!.field).toBe('[0]');
      expect(await state()).toEqual(before);
      const there = (await admin('GET', `/dispensaries/${created.id}/menu`)).json();
      expect(there[0].prices[0].stock).toBe(1);
    });
  });

  describe('400: a malformed batch, with its problems; nothing applied', () => {
    it.each([
      [
        'an object',
        { item_id: 3, unit: 'gram', amount: 1, stock: 1 },
        [{ field: 'body', message: 'must be a JSON array' }],
      ],
      ['a string', 'restock', [{ field: 'body', message: 'must be a JSON array' }]],
    ])('a body that is %s', async (_label, body, problems) => {
      const before = await state();
      expectInvalid(await admin('PATCH', path(), JSON.stringify(body)), problems);
      expect(await state()).toEqual(before);
    });

    it('malformed JSON', async () => {
      const before = await state();
      expectError(await admin('PATCH', path(), '[{"item_id": 3,'), 400, 'invalid_request');
      expect(await state()).toEqual(before);
    });

    it.each([
      ['item_id as a string', { item_id: '3', unit: 'gram', amount: 1, stock: 1 }, 'item_id'],
      ['item_id 1.5', { item_id: 1.5, unit: 'gram', amount: 1, stock: 1 }, 'item_id'],
      ['item_id 0', { item_id: 0, unit: 'gram', amount: 1, stock: 1 }, 'item_id'],
      ['an unknown unit', { item_id: 3, unit: 'kilo', amount: 1, stock: 1 }, 'unit'],
      ['a missing unit', { item_id: 3, amount: 1, stock: 1 }, 'unit'],
      ['amount 0', { item_id: 3, unit: 'gram', amount: 0, stock: 1 }, 'amount'],
      ['amount as a string', { item_id: 3, unit: 'gram', amount: '1', stock: 1 }, 'amount'],
      ['negative stock', { item_id: 3, unit: 'gram', amount: 1, stock: -1 }, 'stock'],
      ['stock too large', { item_id: 3, unit: 'gram', amount: 1, stock: 1e12 }, 'stock'],
      ['stock as a string', { item_id: 3, unit: 'gram', amount: 1, stock: '5' }, 'stock'],
      ['a missing stock', { item_id: 3, unit: 'gram', amount: 1 }, 'stock'],
      ['an unknown field', { item_id: 3, unit: 'gram', amount: 1, stock: 1, price: 9 }, 'price'],
      ['not an object', 42, '1'],
    ])('%s, as the second entry: 400 naming the entry and field', async (_label, bad, field) => {
      const before = await state();
      const error = expectError(
        await admin('PATCH', path(), [GOOD[0], bad, GOOD[2]]),
        400,
        'invalid_request',
      );
      expect(error.problems!.length).toBeGreaterThan(0);
      // Schema problems read "1.field", the validator's "[1].field": either way the entry and field are named.
      for (const problem of error.problems!) expect(problem.field).toMatch(/^(\[1\]|1)(\.|$)/);
      expect(error.problems!.some((problem) => problem.field.endsWith(field))).toBe(true);
      expect(await state()).toEqual(before);
    });

    it('the same price entry twice', async () => {
      const before = await state();
      const error = expectError(
        await admin('PATCH', path(), [GOOD[0], GOOD[1], { ...GOOD[0], stock: 5 }]),
        400,
        'invalid_request',
      );
      expect(error.problems).toEqual([{ field: '[2]', message: 'sets the same price entry as [0]' }]);
      expect(await state()).toEqual(before);
    });

    it('more than 20,000 entries', async () => {
      const before = await state();
      const batch = Array.from({ length: 20_001 }, (_, index) => ({
        item_id: index + 1,
        unit: 'gram',
        amount: 1,
        stock: 1,
      }));
      const error = expectError(await admin('PATCH', path(), batch), 400, 'invalid_request');
      expect(error.problems).toEqual([{ field: 'body', message: 'has 20001 entries; at most 20000' }]);
      expect(await state()).toEqual(before);
    });
  });

  describe('404 and bad paths', () => {
    it('an unknown dispensary', async () => {
      expectError(await admin('PATCH', '/dispensaries/999/inventory', GOOD), 404, 'not_found');
    });

    it.each(['0', 'x', '1;DROP'])('a malformed dispensary id %j', async (bad) => {
      expectError(
        await admin('PATCH', `/dispensaries/${encodeURIComponent(bad)}/inventory`, GOOD),
        400,
        'invalid_request',
      );
    });

    it.each(['GET', 'PUT', 'DELETE'] as const)('%s is not allowed', async (method) => {
      const response = await admin(method, path(), method === 'PUT' ? GOOD : undefined);
      expectError(response, 405, 'method_not_allowed');
    });
  });
});
