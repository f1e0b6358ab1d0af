import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

const flower = (name: string, externalId: string, extra: Record<string, unknown> = {}) => ({
  name,
  product_type: 'Flower',
  external_id: externalId,
  prices: [{ unit: 'gram', amount: 1, price: 10, stock: 5 }],
  ...extra,
});

describe('items named by external_id (ext:…) in the menu services', () => {
  let runtime: TestRuntime;
  let dispensaryId: number;
  const menu = () => runtime.services.menus.export(dispensaryId, 'canonical', 'json');

  beforeAll(async () => {
    runtime = await testRuntime();
    dispensaryId = runtime.seed.dispensaryId;
  });
  afterAll(() => runtime.close());
  beforeEach(async () => {
    const { menus } = runtime.services;
    await menus.replace(
      dispensaryId,
      menus.validate([
        { id: 1, ...flower('A', 'pos-1') },
        { id: 2, ...flower('B', 'pos-2') },
      ]),
    );
  });

  it('patch, set active, stock and delete take ext:<external_id>', async () => {
    const { menus } = runtime.services;
    const read = await menus.patchItem(dispensaryId, { externalId: 'pos-2' }, { name: 'B renamed' });
    expect(read).toMatchObject({ id: 2, name: 'B renamed', external_id: 'pos-2' });
    await menus.setActive(dispensaryId, { externalId: 'pos-1' }, false);
    expect(
      await menus.setStock(dispensaryId, [
        { item_id: 'ext:pos-2', unit: 'gram', amount: 1, stock: 9 },
        { item_id: 1, unit: 'gram', amount: 1, stock: 3 },
      ]),
    ).toEqual({ updated: 2 });
    const items = await menus.items(dispensaryId);
    expect(items.map((item) => [item.id, item.active, item.prices[0]!.stock])).toEqual([
      [1, false, 3],
      [2, true, 9],
    ]);
    await menus.deleteItem(dispensaryId, { externalId: 'pos-1' });
    expect((await menus.items(dispensaryId)).map((item) => item.id)).toEqual([2]);
  });

  it('an unknown external_id is a 404 naming it, and changes nothing', async () => {
    const { menus } = runtime.services;
    const before = await menu();
    const attempts = [
      () => menus.patchItem(dispensaryId, { externalId: 'pos-9' }, { name: 'X' }),
      () => menus.deleteItem(dispensaryId, { externalId: 'pos-9' }),
      () => menus.setActive(dispensaryId, { externalId: 'pos-9' }, false),
      () =>
        menus.setStock(dispensaryId, [
          { item_id: 1, unit: 'gram', amount: 1, stock: 0 },
          { item_id: 'ext:pos-9', unit: 'gram', amount: 1, stock: 0 },
        ]),
    ];
    for (const attempt of attempts) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ code: 'not_found', message: expect.stringContaining('ext:pos-9') });
    }
    expect(await menu()).toBe(before);
  });

  it('concurrent writers of one external_id: one wins, the others get the 400 and change nothing', async () => {
    const { menus } = runtime.services;
    // Each checks the menu as it read it before writing; only the database can stop the later ones.
    const outcomes = await Promise.allSettled([
      menus.upsert(dispensaryId, [flower('First', 'pos-3')]),
      menus.upsert(dispensaryId, [flower('Second', 'pos-3')]),
      menus.patchItem(dispensaryId, 2, { external_id: 'pos-3' }),
    ]);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused.length).toBe(2);
    for (const outcome of refused) {
      expect(outcome.reason).toMatchObject({
        code: 'invalid_request',
        problems: [
          {
            field: expect.stringMatching(/^(\[0\]\.)?external_id$/),
            message: expect.stringMatching(/pos-3 is the external_id of item \d+/),
          },
        ],
      });
    }
    const items = await menus.items(dispensaryId);
    expect(items.filter((item) => item.externalId === 'pos-3')).toHaveLength(1);
    expect(items).toHaveLength(outcomes[2]!.status === 'fulfilled' ? 2 : 3);
  });
});
