import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuItem, MenuItemInput } from '../../src/domain/item.js';
import { ChangeFeed } from '../../src/services/change-feed.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_KIND, onPostgres, type TestDatabase, testDatabase } from '../helpers/database.js';
import { readWhileWriting } from '../helpers/read-while-writing.js';

describe(`change notices on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let writers: Store[];
  let reader: Store;
  beforeAll(async () => {
    database = await testDatabase();
    writers = [await openStore(database.address), await openStore(database.address)];
    reader = await openStore(database.address);
  });
  afterAll(async () => {
    for (const store of [...(writers ?? []), reader]) await store?.close();
    await database?.cleanup();
  });

  it('a reader polling during concurrent writes from two stores never skips a notice', async () => {
    const feed = new ChangeFeed(reader, 60_000);
    const seen: number[] = [];
    feed.subscribe((change) => seen.push(change.seq));
    await feed.start();
    let writing = true;
    const polling = (async () => {
      while (writing) await feed.poll();
    })();
    const write = (index: number, n: number) =>
      writers[index]!.dispensaries.create(`Writer ${index} #${n}`, `digest-${index}-${n}`);
    try {
      if (onPostgres) {
        // Each write is its own transaction; two stores (two pools) write at once, so commits race.
        await Promise.all(
          [0, 1].map(async (index) => {
            for (let n = 0; n < 25; n++) await write(index, n);
          }),
        );
      } else {
        // better-sqlite3 waits for a lock synchronously: two connections of one process must take
        // turns (separate processes, the real case, simply wait for each other).
        for (let n = 0; n < 25; n++) for (const index of [0, 1]) await write(index, n);
      }
    } finally {
      writing = false;
      await polling;
    }
    await feed.poll();
    feed.stop();
    const all = (await reader.changes.since(0)).map((change) => change.seq);
    expect(all).toHaveLength(50);
    // Delivered once each, in order, none skipped even when commits raced.
    expect(seen).toEqual(all);
  });

  it.skipIf(!onPostgres)('listen() hears a write of another process, and stops when asked', async () => {
    let notices = 0;
    const stop = await reader.listen!(() => {
      notices++;
    });
    // One call right after connecting, to catch up on anything missed before.
    expect(notices).toBe(1);
    await writers[0]!.dispensaries.create('Heard', 'digest-heard');
    const deadline = Date.now() + 2_000;
    while (notices < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(notices).toBe(2);
    await stop();
    await writers[0]!.dispensaries.create('Unheard', 'digest-unheard');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(notices).toBe(2);
  });

  it.skipIf(onPostgres)('SQLite offers no listen(): the periodic poll is the mechanism', () => {
    expect(reader.listen).toBeUndefined();
  });

  it('counts and large numbers come back as JS numbers on every database', async () => {
    const [summary] = await reader.dispensaries.list();
    expect(typeof summary!.itemCount).toBe('number');
    expect(typeof (await reader.changes.lastSeq())).toBe('number');
  });
});

describe(`concurrent writers on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let stores: Store[];
  beforeAll(async () => {
    database = await testDatabase();
    stores = [await openStore(database.address), await openStore(database.address)];
  });
  afterAll(async () => {
    for (const store of stores ?? []) await store.close();
    await database?.cleanup();
  });

  const item = (id: number, name: string) => ({
    id,
    name,
    brand: '',
    productType: 'Flower' as const,
    productSubtype: '',
    description: '',
    image: null,
    cbd: null,
    cbn: null,
    thc: null,
    totalThc: null,
    totalCbd: null,
    flavors: [],
    effects: [],
    conditions: [],
    active: true,
    prices: [{ unit: 'gram' as const, amount: 1, priceCents: 100 * id, stock: null }],
  });

  it('two full menu replacements of one dispensary at once: both succeed, the last one wins whole', async () => {
    const dispensary = await stores[0]!.dispensaries.create('Contended', 'digest-contended');
    const menus = [0, 1].map((writer) =>
      Array.from({ length: 200 }, (_, index) => item(index + 1, `writer ${writer} item ${index + 1}`)),
    );
    const run = async (writer: number) => {
      for (let round = 0; round < 5; round++)
        await stores[writer]!.menus.replace(dispensary.id, menus[writer]!);
    };
    if (onPostgres) await Promise.all([run(0), run(1)]);
    else for (const writer of [0, 1]) await run(writer);
    const menu = await stores[0]!.menus.read(dispensary.id);
    expect(menu).toHaveLength(200);
    // Never a mix of the two writers' menus.
    expect(new Set(menu.map((entry) => entry.name.split(' item ')[0])).size).toBe(1);
  });
});

describe(`menu reads during writes on ${DATABASE_KIND}`, () => {
  let database: TestDatabase;
  let reader: Store;
  let writer: Store;
  beforeAll(async () => {
    database = await testDatabase();
    [reader, writer] = [await openStore(database.address), await openStore(database.address)];
  });
  afterAll(async () => {
    for (const store of [reader, writer]) await store?.close();
    await database?.cleanup();
  });

  /** Menu `version` of 60 items, given out of id order; every third item has no price entries. */
  const menu = (version: number): MenuItemInput[] =>
    Array.from({ length: 60 }, (_, index) => {
      const id = ((index * 37) % 60) + 1;
      return {
        id,
        name: `version ${version} item ${id}`,
        brand: '',
        productType: 'Flower',
        productSubtype: '',
        description: '',
        image: null,
        cbd: null,
        cbn: null,
        thc: null,
        totalThc: null,
        totalCbd: null,
        flavors: [],
        effects: [],
        conditions: [],
        active: true,
        prices:
          id % 3 === 0
            ? []
            : [
                { unit: 'ounce', amount: 0.125, priceCents: version * 100_000 + id, stock: null },
                { unit: 'gram', amount: 1, priceCents: version * 100_000 + id + 1, stock: version },
              ],
      };
    });
  /** What a read of menu `version` gives: items by id, entries in their given order (times aside). */
  const expected = (version: number) => [...menu(version)].sort((a, b) => a.id! - b.id!);
  const withoutTimes = (items: MenuItem[]) =>
    items.map((item) => ({
      ...item,
      prices: item.prices.map(({ unit, amount, priceCents, stock }) => ({ unit, amount, priceCents, stock })),
    }));

  it('a read sees one whole menu, ordered, with items without prices, never half of a write', async () => {
    const dispensary = await writer.dispensaries.create('Read while written', 'digest-read-written');
    await writer.menus.replace(dispensary.id, menu(0));
    const versions = [expected(0), expected(1)];
    // Reads never wait for the writer. On SQLite the two stores are two connections of this process,
    // and the reader's queries run between the writer's statements while it holds the write lock: a
    // read that asked for that lock would block the event loop for busy_timeout, then fail.
    const { seen, mixed } = await readWhileWriting(
      async () => withoutTimes(await reader.menus.read(dispensary.id)),
      versions,
      async () => {
        for (let round = 1; round <= 30; round++) await writer.menus.replace(dispensary.id, menu(round % 2));
      },
    );
    expect(mixed).toBe(0);
    // The reads did overlap the writes: each menu was read.
    expect(Math.min(...seen)).toBeGreaterThan(0);
    expect(withoutTimes(await reader.menus.read(dispensary.id))).toEqual(versions[0]);
  });
});
