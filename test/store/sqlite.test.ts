import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MenuItemInput } from '../../src/domain/item.js';
import { LATEST_MIGRATION } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/open.js';
import { ConflictError, type Store } from '../../src/store/store.js';
import { assertBuilt, REPOSITORY } from '../helpers/cli.js';
import { onPostgres, temporaryDirectory } from '../helpers/runtime.js';

/** Opens (and so migrates) the store in a process of its own, as a server or a CLI command does. */
function openInAnotherProcess(path: string): Promise<string> {
  const open = pathToFileURL(join(REPOSITORY, 'dist', 'store', 'open.js')).href;
  const script = `const { openStore } = await import(${JSON.stringify(open)});
    const store = await openStore(${JSON.stringify(path)});
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

function input(id: number | null, overrides: Partial<MenuItemInput> = {}): MenuItemInput {
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

/** The menu as given on input: the store may add its own timestamps to price entries. */
function withoutTimes(items: readonly MenuItemInput[]): MenuItemInput[] {
  return items.map((item) => ({
    ...item,
    prices: item.prices.map(({ unit, amount, priceCents, stock }) => ({ unit, amount, priceCents, stock })),
  }));
}

function raw(path: string): Database.Database {
  return new Database(path, { readonly: true });
}

// The SQLite store itself: its file, WAL mode and column types. Runs once, in the sqlite project.
describe.skipIf(onPostgres)('SQLite store', () => {
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

  describe('migrations', () => {
    it('create the file, its folders and every table, in WAL mode', () => {
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

    it('reopening an existing file migrates nothing twice and keeps the data', async () => {
      const dispensary = await store.dispensaries.create('Kept', 'digest-kept');
      await store.menus.replace(dispensary.id, [input(4)]);
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
        expect((await store.menus.read(dispensary.id)).map((item) => item.id)).toEqual([4]);
      } finally {
        await second.close();
      }
    });

    it('processes opening a new file at the same moment migrate it once, one after the other', async () => {
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
    });

    it('accepts the sqlite: prefix', async () => {
      const other = await openStore(`sqlite:${join(directory.path, 'prefixed.db')}`);
      await other.close();
      expect(existsSync(join(directory.path, 'prefixed.db'))).toBe(true);
    });
  });

  describe('change notices', () => {
    it('record every kind of write, in order, with what changed', async () => {
      const start = await store.changes.lastSeq();
      const a = await store.dispensaries.create('A', 'digest-a');
      await store.dispensaries.setToken(a.id, 'digest-a2');
      await store.credentials.create('alice', 'hash');
      await store.menus.replace(a.id, [input(1)]);
      await store.menus.setItemActive(a.id, 1, false);
      await store.credentials.revoke('alice');
      await store.dispensaries.remove(a.id);

      const changes = await store.changes.since(start);
      expect(changes.map(({ kind, dispensaryId, subject }) => [kind, dispensaryId, subject])).toEqual([
        ['dispensary', a.id, null],
        ['dispensary', a.id, null],
        ['credential', null, 'alice'],
        ['menu', a.id, null],
        ['menu', a.id, null],
        ['credential', null, 'alice'],
        ['dispensary', a.id, null],
      ]);
      const seqs = changes.map((change) => change.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(await store.changes.lastSeq()).toBe(seqs.at(-1));
      expect(await store.changes.since(seqs[4]!)).toEqual(changes.slice(5));
      expect(await store.changes.since(seqs.at(-1)!)).toEqual([]);
    });

    it('record nothing for a write that changed nothing', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      await store.menus.replace(a.id, [input(1)]);
      const seq = await store.changes.lastSeq();
      expect(await store.menus.setItemActive(a.id, 99, false)).toBe(false);
      expect(await store.dispensaries.setToken(999, 'x')).toBe(false);
      expect(await store.dispensaries.remove(999)).toBe(false);
      expect(await store.credentials.revoke('nobody')).toBe(false);
      await expect(store.menus.replace(999, [input(1)])).rejects.toThrow();
      expect(await store.changes.lastSeq()).toBe(seq);
    });

    it('start at 0 on a new database', async () => {
      expect(await store.changes.lastSeq()).toBe(0);
      expect(await store.changes.since(0)).toEqual([]);
    });
  });

  describe('menus', () => {
    it('read back ordered by id, prices in their given order, numbers and lists intact', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      const items = [
        input(30, {
          prices: [
            { unit: 'ounce', amount: 0.125, priceCents: 3599, stock: 4 },
            { unit: 'gram', amount: 1, priceCents: 1, stock: null },
            { unit: 'gram', amount: 3.5, priceCents: 10_000_000_000, stock: 0 },
          ],
        }),
        input(2, {
          prices: [],
          active: false,
          cbd: 0.1,
          cbn: 0,
          totalThc: 1000,
          totalCbd: 0.5,
          image: 'https://img.example/x.png',
          flavors: [],
          effects: ['Calm', 'Sleepy'],
          conditions: ['Pain'],
          description: 'Multi\nline, "quoted" 日本',
        }),
        input(11),
      ];
      const written = await store.menus.replace(a.id, items);
      const read = await store.menus.read(a.id);
      expect(read.map((item) => item.id)).toEqual([2, 11, 30]);
      expect(withoutTimes(read)).toEqual(withoutTimes(written));
      expect(withoutTimes(read)).toEqual([items[1], items[2], items[0]]);
      expect(read[2]!.prices.map((price) => price.priceCents)).toEqual([3599, 1, 10_000_000_000]);
    });

    it('store prices as integer cents, never as floats', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      await store.menus.replace(a.id, [
        input(1, { prices: [{ unit: 'gram', amount: 1, priceCents: 3599, stock: null }] }),
      ]);
      const db = raw(path);
      try {
        expect(
          db.prepare('SELECT price_cents, typeof(price_cents) AS type FROM price_entries').get(),
        ).toEqual({
          price_cents: 3599,
          type: 'integer',
        });
      } finally {
        db.close();
      }
    });

    it('assign ids after the highest one in use or imported, and keep menus of dispensaries apart', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      const b = await store.dispensaries.create('B', 'digest-b');
      await store.menus.replace(a.id, [input(7), input(3)]);
      await store.menus.replace(b.id, [input(null), input(null)]);
      const replaced = await store.menus.replace(a.id, [input(null), input(5), input(null)]);
      expect(replaced.map((item) => item.id)).toEqual([5, 8, 9]);
      expect((await store.menus.read(b.id)).map((item) => item.id)).toEqual([1, 2]);
      const summary = await store.dispensaries.list();
      expect(summary.map((d) => [d.id, d.itemCount, d.activeItemCount])).toEqual([
        [a.id, 3, 3],
        [b.id, 2, 2],
      ]);
    });

    it('set one item active or inactive, and nothing else', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      await store.menus.replace(a.id, [input(1), input(2)]);
      expect(await store.menus.setItemActive(a.id, 2, false)).toBe(true);
      expect((await store.menus.read(a.id)).map((item) => item.active)).toEqual([true, false]);
      expect(await store.menus.setItemActive(a.id, 2, true)).toBe(true);
      expect((await store.menus.read(a.id)).map((item) => item.active)).toEqual([true, true]);
    });

    it('an empty menu and an unknown dispensary read as []', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      expect(await store.menus.read(a.id)).toEqual([]);
      expect(await store.menus.read(999)).toEqual([]);
    });

    it('removing a dispensary removes its menu', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      await store.menus.replace(a.id, [input(1)]);
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

  describe('dispensaries and credentials', () => {
    it('find a dispensary by its token digest, and only by the current one', async () => {
      const a = await store.dispensaries.create('A', 'digest-a');
      expect(await store.dispensaries.findByTokenDigest('digest-a')).toEqual(a);
      await store.dispensaries.setToken(a.id, 'digest-a2');
      expect(await store.dispensaries.findByTokenDigest('digest-a')).toBeUndefined();
      expect(await store.dispensaries.findByTokenDigest('digest-a2')).toMatchObject({ id: a.id, name: 'A' });
    });

    it('raise ConflictError on a duplicate username, also after revoke, and on a duplicate token digest', async () => {
      await store.credentials.create('alice', 'hash-1');
      await expect(store.credentials.create('alice', 'hash-2')).rejects.toBeInstanceOf(ConflictError);
      await store.credentials.revoke('alice');
      await expect(store.credentials.create('alice', 'hash-3')).rejects.toThrow(/alice exists/);
      await store.dispensaries.create('A', 'same');
      await expect(store.dispensaries.create('B', 'same')).rejects.toBeInstanceOf(ConflictError);
      expect(await store.credentials.find('alice')).toMatchObject({ passwordHash: 'hash-1' });
      expect(await store.credentials.list()).toHaveLength(1);
    });

    it('revoke a credential once, keeping it listed with the time', async () => {
      await store.credentials.create('bob', 'hash');
      expect(await store.credentials.revoke('bob')).toBe(true);
      expect(await store.credentials.revoke('bob')).toBe(false);
      const [bob] = await store.credentials.list();
      expect(bob).toMatchObject({ username: 'bob', revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    });
  });
});
