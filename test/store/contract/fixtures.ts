import { afterAll, beforeAll, expect, test } from 'vitest';
import type { MenuItemInput } from '../../../src/domain/item.js';
import type { KyselyStore } from '../../../src/store/create.js';
import { openKyselyStore, openStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/store.js';
import { itemInput } from '../../domain/item-builder.js';
import { onPostgres, type TestDatabase, testDatabase } from '../../helpers/database.js';

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

/** A menu item to write (see itemInput). */
export const item = itemInput;

/** The menu as given on input: the store adds its own timestamps to price entries. */
export function withoutTimes(items: readonly MenuItemInput[]): MenuItemInput[] {
  return items.map((entry) => ({
    ...entry,
    prices: entry.prices.map(({ updatedAt: _set, ...price }) => price),
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

/** The newest `limit` audit entries, oldest first, as [actor, action, detail]. */
export async function auditTrail(store: Store, limit = 10): Promise<[string, string, unknown][]> {
  return (await store.audit.list({ limit })).map(({ actor, action, detail }) => [actor, action, detail]);
}

/** What an admin key or a credential is when just made: created now, never revoked nor used. */
export const JUST_MADE = {
  createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  revokedAt: null,
  lastUsedAt: null,
};

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes `write(index, n)` 25 times from each of two stores (index 0 and 1). On PostgreSQL at once:
 * each write is its own transaction, and two stores (two pools) writing at once make commits race.
 * On SQLite in turns: better-sqlite3 waits for a lock synchronously, so two connections of one
 * process must take turns (separate processes, the real case, simply wait for each other).
 */
export async function writeFromTwoStores(
  write: (index: number, n: number) => Promise<unknown>,
): Promise<void> {
  if (onPostgres) {
    await Promise.all(
      [0, 1].map(async (index) => {
        for (let n = 0; n < 25; n++) await write(index, n);
      }),
    );
  } else {
    for (let n = 0; n < 25; n++) for (const index of [0, 1]) await write(index, n);
  }
}

/**
 * Two writing stores and a reading one, each with its own pool, on one fresh database: opened before
 * the tests of the describe block that calls this, closed after them.
 */
export function storesOnOneDatabase(): { writers: Store[]; reader: Store } {
  const stores = {} as { writers: Store[]; reader: Store };
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await testDatabase();
    stores.writers = [await openStore(database.address), await openStore(database.address)];
    stores.reader = await openStore(database.address);
  });
  afterAll(async () => {
    for (const store of [...(stores.writers ?? []), stores.reader]) await store?.close();
    await database?.cleanup();
  });
  return stores;
}
