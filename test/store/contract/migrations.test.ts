import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it as plainIt } from 'vitest';
import { LATEST_MIGRATION } from '../../../src/store/migrations/index.js';
import { openStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/store.js';
import { priceEntry } from '../../domain/item-builder.js';
import { assertBuilt, REPOSITORY } from '../../helpers/cli.js';
import { DATABASE_KIND, onPostgres, testDatabase } from '../../helpers/database.js';
import { temporaryDirectory } from '../../helpers/runtime.js';
import { it, item } from './fixtures.js';

/** Opens (and so migrates) the store in a process of its own, as a server or a CLI command does. */
function openInAnotherProcess(address: string): Promise<string> {
  const open = pathToFileURL(join(REPOSITORY, 'dist', 'store', 'open.js')).href;
  const script = `const { openStore } = await import(${JSON.stringify(open)});
    const store = await openStore(${JSON.stringify(address)});
    await store.close();`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { timeout: 20_000 },
      (error, _out, stderr) => resolve(error ? `failed: ${stderr || error.message}` : 'ok'),
    );
  });
}

type MigrationRows = Kysely<{ schema_migrations: { name: string; timestamp: string } }>;

describe(`migrations on ${DATABASE_KIND}`, () => {
  // First in the file, so that its database is a new one, not yet migrated. PostgreSQL only: on SQLite,
  // stores of one process wait for each other's locks synchronously; its test with other processes is below.
  plainIt.skipIf(!onPostgres)(
    'stores opening a new database at the same moment migrate it once',
    async () => {
      const database = await testDatabase();
      try {
        const stores = await Promise.all([1, 2, 3].map(() => openStore(database.address)));
        try {
          for (const store of stores) await store.checkReady();
          const dispensary = await stores[0]!.dispensaries.create('A', 'digest-a');
          expect(await stores[2]!.dispensaries.get(dispensary.id)).toEqual(dispensary);
        } finally {
          for (const store of stores) await store.close();
        }
      } finally {
        await database.cleanup();
      }
    },
  );

  it('migrating again changes nothing, and a migrated store is ready', async ({ database, store }) => {
    const dispensary = await store.dispensaries.create('Kept', 'digest-kept');
    await store.menus.replace(dispensary.id, [item(4)]);
    await store.migrate();
    await store.checkReady();
    const again = await openStore(database.address);
    try {
      await again.checkReady();
      expect(await again.dispensaries.get(dispensary.id)).toEqual(dispensary);
      expect((await again.menus.read(dispensary.id)).map((entry) => entry.id)).toEqual([4]);
    } finally {
      await again.close();
    }
  });

  it('checkReady names a migration that has not run', async ({ store }) => {
    await store.checkReady();
    const migrations = store.database as unknown as MigrationRows;
    const latest = migrations
      .selectFrom('schema_migrations')
      .selectAll()
      .where('name', '=', LATEST_MIGRATION);
    const row = await latest.executeTakeFirstOrThrow();
    await migrations.deleteFrom('schema_migrations').where('name', '=', LATEST_MIGRATION).execute();
    try {
      await expect(store.checkReady()).rejects.toThrow(`migrations not applied: ${LATEST_MIGRATION}`);
    } finally {
      // Put back: on PostgreSQL the next test of this file gets this database, emptied but not re-migrated.
      await migrations.insertInto('schema_migrations').values(row).execute();
    }
    await store.checkReady();
  });
});

function raw(path: string): Database.Database {
  return new Database(path, { readonly: true });
}

// The SQLite store's own file: WAL mode, folders, column types, other processes. SQLite project only.
describe.skipIf(onPostgres)('SQLite store file', () => {
  let directory: ReturnType<typeof temporaryDirectory>;
  let path: string;
  let store: Store;
  beforeEach(async () => {
    directory = temporaryDirectory();
    path = join(directory.path, 'nested', 'folder', 'menu.db');
    store = await openStore(path);
  });
  afterEach(async () => {
    await store.close();
    directory.remove();
  });

  plainIt('create the file, its folders and every table, in WAL mode', () => {
    expect(existsSync(path)).toBe(true);
    expect(store.location).toBe(`sqlite:${path}`);
    const db = raw(path);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .pluck()
        .all() as string[];
      expect(tables).toEqual(
        expect.arrayContaining(['dispensaries', 'credentials', 'items', 'price_entries', 'changes']),
      );
      const applied = db.prepare('SELECT name FROM schema_migrations ORDER BY name').pluck().all();
      expect(applied.at(-1)).toBe(LATEST_MIGRATION);
    } finally {
      db.close();
    }
  });

  plainIt('reopening an existing file migrates nothing twice and keeps the data', async () => {
    const dispensary = await store.dispensaries.create('Kept', 'digest-kept');
    await store.menus.replace(dispensary.id, [item(4)]);
    await store.close();
    const countMigrations = () => {
      const db = raw(path);
      try {
        return db.prepare('SELECT count(*) FROM schema_migrations').pluck().get();
      } finally {
        db.close();
      }
    };
    const before = countMigrations();
    store = await openStore(path);
    const second = await openStore(path); // a second process opening the same file at the same time
    try {
      expect(countMigrations()).toBe(before);
      expect(await second.dispensaries.get(dispensary.id)).toEqual(dispensary);
      expect((await store.menus.read(dispensary.id)).map((entry) => entry.id)).toEqual([4]);
    } finally {
      await second.close();
    }
  });

  plainIt(
    'processes opening a new file at the same moment migrate it once, one after the other',
    async () => {
      assertBuilt();
      // Kysely takes no migration lock on SQLite: without one, the second process re-runs a migration
      // the first is running ("table already exists", "duplicate column name").
      for (const round of [1, 2, 3, 4, 5]) {
        const fresh = join(directory.path, `together-${round}.db`);
        const results = await Promise.all([1, 2, 3, 4].map(() => openInAnotherProcess(fresh)));
        expect(results).toEqual(['ok', 'ok', 'ok', 'ok']);
        const db = raw(fresh);
        try {
          const applied = db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[];
          expect(new Set(applied).size).toBe(applied.length);
          expect(applied.at(-1)).toBe(LATEST_MIGRATION);
        } finally {
          db.close();
        }
      }
    },
    // Twenty Node processes start here: on a busy 2-core machine each round takes seconds.
    60_000,
  );

  plainIt('accepts the sqlite: prefix', async () => {
    const other = await openStore(`sqlite:${join(directory.path, 'prefixed.db')}`);
    await other.close();
    expect(existsSync(join(directory.path, 'prefixed.db'))).toBe(true);
  });

  plainIt('store prices as integer cents, never as floats', async () => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [
      item(1, {
        prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 3599, stock: null })],
      }),
    ]);
    const db = raw(path);
    try {
      expect(db.prepare('SELECT price_cents, typeof(price_cents) AS type FROM price_entries').get()).toEqual({
        price_cents: 3599,
        type: 'integer',
      });
    } finally {
      db.close();
    }
  });

  plainIt('removing a dispensary removes its menu rows', async () => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [item(1)]);
    expect(await store.dispensaries.remove(a.id)).toBe(true);
    expect(await store.dispensaries.get(a.id)).toBeUndefined();
    const db = raw(path);
    try {
      expect(db.prepare('SELECT count(*) FROM items').pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM price_entries').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});
