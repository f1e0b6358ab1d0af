import { test } from 'vitest';
import type { MenuItemInput } from '../../../src/domain/item.js';
import type { KyselyStore } from '../../../src/store/create.js';
import { openKyselyStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/store.js';
import { type TestDatabase, testDatabase } from '../../helpers/database.js';

/**
 * `it` of the store contract: each test gets a fresh, empty database of the project's kind (SQLite
 * file or PostgreSQL database, see test/helpers/database.ts) and a store opened on it (with its query
 * builder reachable, for the few tests that look at tables directly).
 */
export const it = test.extend<{ database: TestDatabase; store: KyselyStore }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  database: async ({}, use) => {
    const database = await testDatabase();
    await use(database);
    await database.cleanup();
  },
  store: async ({ database }, use) => {
    const store = await openKyselyStore(database.address);
    await use(store);
    await store.close();
  },
});

export function item(id: number | null, overrides: Partial<MenuItemInput> = {}): MenuItemInput {
  return {
    id,
    name: `Item ${id ?? 'new'}`,
    brand: 'Brand',
    productType: 'Flower',
    productSubtype: 'Hybrid',
    description: '',
    image: null,
    cbd: null,
    cbn: null,
    thc: 20.5,
    totalThc: null,
    totalCbd: null,
    flavors: ['Pine'],
    effects: [],
    conditions: [],
    active: true,
    prices: [{ unit: 'gram', amount: 1, priceCents: 1000, stock: null }],
    ...overrides,
  };
}

/** The menu as given on input: the store adds its own timestamps to price entries. */
export function withoutTimes(items: readonly MenuItemInput[]): MenuItemInput[] {
  return items.map((entry) => ({
    ...entry,
    prices: entry.prices.map(({ unit, amount, priceCents, stock }) => ({ unit, amount, priceCents, stock })),
  }));
}

/** The change notices after `since`, as [kind, dispensary id, subject]. */
export async function lastChanges(
  store: Store,
  since: number,
): Promise<[string, number | null, string | null][]> {
  return (await store.changes.since(since)).map(({ kind, dispensaryId, subject }) => [
    kind,
    dispensaryId,
    subject,
  ]);
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
