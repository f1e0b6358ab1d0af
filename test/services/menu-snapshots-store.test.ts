import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuItem, MenuItemInput } from '../../src/domain/item.js';
import { InventorySchema, inventoryEntries } from '../../src/forms/common/inventory.js';
import { FormAMenu, toFormAItem } from '../../src/forms/form-a/item.js';
import { formBMenuSchema, toFormBItem } from '../../src/forms/form-b/item.js';
import { ChangeFeed } from '../../src/services/change-feed.js';
import { MenuSnapshots } from '../../src/services/menu-snapshots.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { itemInput, priceEntry } from '../domain/item-builder.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';

function input(id: number, version: number, overrides: Partial<MenuItemInput> = {}): MenuItemInput {
  return itemInput(id, {
    name: `Item ${id} v${version}`,
    description: `A description long enough to be worth compressing (item ${id}). `.repeat(2),
    prices: [
      priceEntry({ unit: 'gram', amount: 1, priceCents: 1000 + version, stock: 5 }),
      priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3000, stock: null }),
    ],
    ...overrides,
  });
}

/** The list views the server declares, over a MenuSnapshots instance. */
function views(snapshots: MenuSnapshots) {
  return [
    snapshots.listView('b', formBMenuSchema('both'), (item) =>
      item.active ? [toFormBItem(item, 'both')] : [],
    ),
    snapshots.listView('a', FormAMenu, (item) => (item.active ? [toFormAItem(item)] : [])),
    snapshots.listView('inventory', InventorySchema, (item) => inventoryEntries([item], undefined)),
  ];
}

const decode = (body: Buffer, encoding: string) =>
  (encoding === 'gzip' ? gunzipSync(body) : encoding === 'br' ? brotliDecompressSync(body) : body).toString();

const operation = fc.oneof(
  fc.record({
    kind: fc.constant('stock' as const),
    pick: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
    stock: fc.integer({ min: 0, max: 99 }),
  }),
  fc.record({
    kind: fc.constant('upsert' as const),
    pick: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
    fresh: fc.nat({ max: 2 }),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    pick: fc.array(fc.nat(), { minLength: 1, maxLength: 1 }),
  }),
  fc.record({
    kind: fc.constant('active' as const),
    pick: fc.array(fc.nat(), { minLength: 1, maxLength: 1 }),
    active: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('replace' as const), pick: fc.array(fc.nat(), { maxLength: 5 }) }),
);

describe(`list snapshots patched from the live feed on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await testDatabase();
    store = await openStore(database.address);
  });
  afterAll(async () => {
    await store.close();
    await database.cleanup();
  });

  it('after random writes, every coding of every list view decodes to a from-scratch build, with its tag', async () => {
    let dispensaries = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 120 }),
        fc.array(operation, { minLength: 1, maxLength: 6 }),
        async (count, operations) => {
          const { id } = await store.dispensaries.create(`D${++dispensaries}`, `digest-${dispensaries}`);
          await store.menus.replace(
            id,
            Array.from({ length: count }, (_, index) => input(index + 1, 0, { active: index % 7 !== 3 })),
          );
          const feed = new ChangeFeed(store, 60_000);
          await feed.start();
          const snapshots = new MenuSnapshots(
            {
              budgetBytes: 64 * 1024 * 1024,
              loadItems: (dispensaryId) => store.menus.read(dispensaryId),
              feed: {
                loadMenu: (dispensaryId) => store.menus.readAt(dispensaryId),
                loadChanges: (dispensaryId, after) => store.menus.readChangedSince(dispensaryId, after),
              },
            },
            feed,
          );
          const patched = views(snapshots);
          try {
            for (const view of patched) await view.read(id, 'gzip');
            let version = 1;
            for (const step of operations) {
              const items: MenuItem[] = await store.menus.read(id);
              const chosen = (pick: number[]) =>
                items.length === 0 ? [] : [...new Set(pick.map((n) => items[n % items.length]!))];
              if (step.kind === 'stock') {
                const targets = chosen(step.pick);
                if (targets.length > 0) {
                  await store.menus.setStock(
                    id,
                    targets.map((item) => ({ itemId: item.id, unit: 'gram', amount: 1, stock: step.stock })),
                  );
                }
              } else if (step.kind === 'upsert') {
                const next = chosen(step.pick).map((item) =>
                  input(item.id, version++, { active: item.active }),
                );
                for (let n = 0; n < step.fresh; n++) next.push(input(null as unknown as number, version++));
                if (next.length > 0) await store.menus.upsertItems(id, next);
              } else if (step.kind === 'delete') {
                for (const item of chosen(step.pick)) await store.menus.deleteItem(id, item.id);
              } else if (step.kind === 'active') {
                for (const item of chosen(step.pick))
                  await store.menus.setItemActive(id, item.id, step.active);
              } else {
                const renamed = new Set(chosen(step.pick).map((item) => item.id));
                const dropped = items.length > 3 ? items[0]!.id : undefined;
                await store.menus.replace(
                  id,
                  items
                    .filter((item) => item.id !== dropped)
                    .map((item) =>
                      renamed.has(item.id) ? { ...item, name: `${item.name} r${version++}` } : item,
                    ),
                );
              }
              await feed.poll();
              const scratch = views(
                new MenuSnapshots({
                  budgetBytes: 64 * 1024 * 1024,
                  loadItems: (dispensaryId) => store.menus.read(dispensaryId),
                }),
              );
              for (const [index, view] of patched.entries()) {
                for (const coding of ['gzip', 'identity', 'br']) {
                  const answer = await view.read(id, coding);
                  const fresh = await scratch[index]!.read(id, coding);
                  expect(decode(answer.body, answer.encoding)).toBe(decode(fresh.body, fresh.encoding));
                  expect(answer.tag).toBe(fresh.tag);
                }
              }
            }
          } finally {
            feed.stop();
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
