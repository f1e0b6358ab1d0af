import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.js';
import { MENU_FORMS } from '../../src/forms/index.js';
import { createRuntime } from '../../src/server/runtime.js';
import { copyDatabase } from '../../src/services/db-copy.js';
import { ServiceError } from '../../src/services/errors.js';
import { createServices } from '../../src/services/index.js';
import { openKyselyStore, openStore } from '../../src/store/open.js';
import { TABLES } from '../../src/store/tables.js';
import { runCli, runCommand } from '../helpers/cli.js';
import { DATABASE_KIND, type TestDatabase, testDatabase } from '../helpers/database.js';
import { formBHeaders } from '../helpers/http.js';
import { SAMPLE_MENU, type Seed, TEST_SCRYPT } from '../helpers/runtime.js';

type Rows = Record<string, Record<string, unknown>[]>;

/** Every row of every table, in key order: what a copy must reproduce exactly. */
async function everything(address: string): Promise<Rows> {
  const store = await openKyselyStore(address);
  const db = store.database as unknown as Kysely<Record<string, Record<string, unknown>>>;
  try {
    const rows: Rows = {};
    for (const { name, key } of TABLES) {
      let query = db.selectFrom(name).selectAll();
      for (const column of key) query = query.orderBy(column);
      rows[name] = await query.execute();
    }
    return rows;
  } finally {
    await store.close();
  }
}

/** A database with a bit of everything: two dispensaries, credentials (one revoked), menus, changes. */
async function seeded(database: TestDatabase): Promise<Seed> {
  const store = await openStore(database.address);
  try {
    const { dispensaries, credentials, menus } = createServices(store, MENU_FORMS, undefined, TEST_SCRYPT);
    const first = await dispensaries.create('First Collective');
    const second = await dispensaries.create('Second Collective');
    await dispensaries.rotateToken(second.id);
    const credential = await credentials.issue('integrator');
    await credentials.issue('former');
    await credentials.revoke('former');
    await menus.replace(first.id, menus.validate(SAMPLE_MENU));
    await menus.replace(second.id, menus.validate(SAMPLE_MENU.slice(0, 2)));
    await store.menus.setItemActive(first.id, 7, false);
    return { dispensaryId: first.id, token: first.token, ...credential };
  } finally {
    await store.close();
  }
}

/** Form B through a fresh runtime over the address, as a client of the moved service would ask. */
async function menuThrough(address: string, seed: Seed) {
  const runtime = await createRuntime(
    { ...DEFAULTS, database: address, databasePoolSize: 2 },
    { logger: false, scryptCost: TEST_SCRYPT },
  );
  try {
    return await runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(seed) });
  } finally {
    await runtime.close();
  }
}

// Both directions between this project's database and SQLite: on the postgres project that is
// SQLite to PostgreSQL and back; on the sqlite project, SQLite to SQLite.
describe(`db copy between sqlite and ${DATABASE_KIND}`, () => {
  let source: TestDatabase;
  let middle: TestDatabase;
  let back: TestDatabase;
  let seed: Seed;
  let original: Rows;
  beforeAll(async () => {
    source = await testDatabase('sqlite');
    middle = await testDatabase();
    back = await testDatabase('sqlite');
    seed = await seeded(source);
    original = await everything(source.address);
  });
  afterAll(async () => {
    await source?.cleanup();
    await middle?.cleanup();
    await back?.cleanup();
  });

  it(`copies every row of every table from sqlite to ${DATABASE_KIND}, and verifies the counts`, async () => {
    const progress: string[] = [];
    const report = await copyDatabase(source.address, middle.address, {
      chunkRows: 3, // several chunks per table, so that the key-ordered paging is exercised
      onProgress: ({ table, copied, total }) => progress.push(`${table} ${copied}/${total}`),
    });
    expect(report.replaced).toBe(false);
    expect(report.tables.map((entry) => entry.table)).toEqual(TABLES.map((table) => table.name));
    for (const { table, rows } of report.tables) expect(rows).toBe(original[table]!.length);
    expect(report.rows).toBe(Object.values(original).reduce((sum, rows) => sum + rows.length, 0));
    expect(progress).toContain(`items 3/${original.items!.length}`);
    expect(await everything(middle.address)).toEqual(original);
  });

  it('tokens and passwords issued before the copy work against the target', async () => {
    const response = await menuThrough(middle.address, seed);
    expect(response.statusCode).toBe(200);
    expect(response.json().map((item: { id: number }) => item.id)).toEqual([1, 3]);
    const revoked = await menuThrough(middle.address, { ...seed, username: 'former', password: 'x' });
    expect(revoked.statusCode).toBe(401);
  });

  it('new rows on the target continue after the copied ids', async () => {
    const store = await openStore(middle.address);
    try {
      const { dispensaries } = createServices(store, MENU_FORMS, undefined, TEST_SCRYPT);
      const created = await dispensaries.create('Third Collective');
      expect(created.id).toBe(3);
      expect(await store.changes.lastSeq()).toBe(
        Math.max(...original.changes!.map((row) => Number(row.seq))) + 1,
      );
      await dispensaries.remove(created.id);
    } finally {
      await store.close();
    }
  });

  it(`copies back from ${DATABASE_KIND} to sqlite through the command line`, async () => {
    // The middle database has moved on since (a credential was used, a dispensary came and went).
    const expected = await everything(middle.address);
    const result = await runCli(undefined, [
      'db',
      'copy',
      '--from',
      middle.address,
      '--to',
      back.address,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.to).toBe(back.address);
    for (const { table, rows } of report.tables as { table: string; rows: number }[]) {
      expect(rows, table).toBe(expected[table]!.length);
    }
    expect(await everything(back.address)).toEqual(expected);
    expect((await menuThrough(back.address, seed)).statusCode).toBe(200);
  });

  it('refuses a target that holds data, changing nothing, unless forced', async () => {
    const before = await everything(back.address);
    await expect(copyDatabase(source.address, back.address)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('pass --force'),
    });
    expect(await everything(back.address)).toEqual(before);
    const forced = await copyDatabase(source.address, back.address, { force: true });
    expect(forced.replaced).toBe(true);
    expect(await everything(back.address)).toEqual(original);
  });

  it('a copy that fails half way leaves the target exactly as it was', async () => {
    const before = await everything(middle.address);
    const failing = copyDatabase(back.address, middle.address, {
      force: true,
      onProgress: ({ table, copied }) => {
        if (table === 'price_entries' && copied > 0) throw new Error('disk full, say');
      },
    });
    await expect(failing).rejects.toThrow('disk full, say');
    expect(await everything(middle.address)).toEqual(before);
  });

  it('refuses to copy a database onto itself', async () => {
    await expect(copyDatabase(source.address, source.address)).rejects.toBeInstanceOf(ServiceError);
  });

  it('the command line reports a refusal as an error with a non-zero exit', async () => {
    // In this process: the copy above ran the built binary as its own process.
    const result = await runCommand(undefined, [
      'db',
      'copy',
      '--from',
      source.address,
      '--to',
      back.address,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The target already holds data');
    expect(result.stderr).toContain('--force');
  });
});
