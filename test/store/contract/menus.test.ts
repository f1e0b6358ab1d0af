import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it as plainIt } from 'vitest';
import type { MenuItem, MenuItemInput, StockUpdate } from '../../../src/domain/item.js';
import { openStore } from '../../../src/store/open.js';
import { ConflictError, type Store, UnmatchedStockError } from '../../../src/store/store.js';
import { priceEntry } from '../../domain/item-builder.js';
import { DATABASE_KIND, onPostgres, type TestDatabase, testDatabase } from '../../helpers/database.js';
import { readWhileWriting } from '../../helpers/read-while-writing.js';
import { it, item, pause, withoutTimes } from './fixtures.js';

/** Each price entry of the menu as [item id, unit, amount, stock, updatedAt]. */
const entries = (menu: MenuItem[]) =>
  menu.flatMap((entry) =>
    entry.prices.map((price) => [entry.id, price.unit, price.amount, price.stock, price.updatedAt] as const),
  );

/** Entries out of unit order, with a fraction, a price beyond 2^32 cents, and each kind of stock. */
const MIXED_PRICES: MenuItemInput['prices'] = [
  priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3599, stock: 4 }),
  priceEntry({ unit: 'gram', amount: 1, priceCents: 1, stock: null }),
  priceEntry({ unit: 'gram', amount: 3.5, priceCents: 10_000_000_000, stock: 0 }),
];

/** An inactive item without prices: zero, fractions, a large number, lists, a URL, multi-line text. */
const INACTIVE_WITHOUT_PRICES: Partial<MenuItemInput> = {
  prices: [],
  active: false,
  cbd: 0.1,
  cbn: 0,
  totalThc: 1000,
  totalCbd: 0.5,
  image: 'https://img.example/x.png',
  effects: ['Calm', 'Sleepy'],
  conditions: ['Pain'],
  description: 'Multi\nline, "quoted" 日本',
};

describe(`store.menus on ${DATABASE_KIND}`, () => {
  it.skipIf(!onPostgres)('PostgreSQL compresses long texts with lz4 when it has it', async ({ store }) => {
    const dispensary = await store.dispensaries.create('Long texts', 'digest-long');
    await store.menus.replace(dispensary.id, [item(1, { description: 'A sweet berry aroma. '.repeat(200) })]);
    const { rows } = await sql<{ lz4: boolean; methods: string[] }>`
      select 'lz4' = any(enumvals) as lz4,
             array(select distinct pg_column_compression(description) from items
                   union select distinct pg_column_compression(item) from menu_changes where item is not null)
               as methods
      from pg_settings where name = 'default_toast_compression'`.execute(store.database);
    expect(rows[0]!.methods).toEqual([rows[0]!.lz4 ? 'lz4' : 'pglz']);
  });

  it('read back ordered by id, prices in their given order, numbers and lists intact', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const items = [
      item(30, {
        prices: MIXED_PRICES,
      }),
      item(2, { ...INACTIVE_WITHOUT_PRICES, flavors: [] }),
      item(11),
    ];
    const written = await store.menus.replace(a.id, items);
    const read = await store.menus.read(a.id);
    expect(read.map((entry) => entry.id)).toEqual([2, 11, 30]);
    expect(withoutTimes(read)).toEqual(withoutTimes(written));
    expect(withoutTimes(read)).toEqual([items[1], items[2], items[0]]);
    expect(read[2]!.prices.map((price) => price.priceCents)).toEqual([3599, 1, 10_000_000_000]);
  });

  it('a menu of 73 items with 219 price entries reads back whole and in order', async ({ store }) => {
    // More rows than one statement takes on either database's kept sizes (64, 8 and 1 on SQLite).
    const dispensary = await store.dispensaries.create('Many', 'digest-many');
    const items = Array.from({ length: 73 }, (_, index) =>
      item(index + 1, { name: `Item ${index + 1}`, prices: MIXED_PRICES, tags: [`t${index}`] }),
    );
    await store.menus.replace(dispensary.id, items);
    expect(withoutTimes(await store.menus.read(dispensary.id))).toEqual(items);
  });

  it('gives back every column as written: nulls, decimals, large integers, lists, booleans', async ({
    store,
  }) => {
    const dispensary = await store.dispensaries.create('Columns', 'digest-columns');
    const items = [
      item(30, {
        thc: null,
        flavors: [],
        prices: MIXED_PRICES,
      }),
      item(2, { ...INACTIVE_WITHOUT_PRICES, thc: 27.35, flavors: ['Pine', 'Citrus'] }),
      item(11, {
        productType: 'Edible',
        prices: [priceEntry({ unit: 'unit', amount: 10, priceCents: 0, stock: 12 })],
      }),
      item(12, { prices: [] }),
    ];
    await store.menus.replace(dispensary.id, items);
    const read = await store.menus.read(dispensary.id);
    expect(withoutTimes(read)).toEqual([items[1], items[2], items[3], items[0]]);
    for (const price of read.flatMap((entry: MenuItem) => entry.prices)) {
      expect(price.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('text with quotes, SQL metacharacters and non-Latin letters is kept exactly', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const texts = [
      "'; DROP TABLE items; --",
      'a"b\\c',
      '%_[]',
      'emoji 🌿 日本',
      ' padded ',
      'line\nbreak\ttab',
    ];
    await store.menus.replace(
      a.id,
      texts.map((text, index) =>
        item(index + 1, { name: text, brand: text, description: text, flavors: [text] }),
      ),
    );
    const read = await store.menus.read(a.id);
    expect(read.map((entry) => [entry.name, entry.brand, entry.description, entry.flavors])).toEqual(
      texts.map((text) => [text, text, text, [text]]),
    );
  });

  it('assign ids after the highest one in use or imported, and keep menus of dispensaries apart', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const b = await store.dispensaries.create('B', 'digest-b');
    await store.menus.replace(a.id, [item(7), item(3)]);
    await store.menus.replace(b.id, [item(null), item(null)]);
    const replaced = await store.menus.replace(a.id, [item(null), item(5), item(null)]);
    expect(replaced.map((entry) => entry.id)).toEqual([5, 8, 9]);
    expect((await store.menus.read(b.id)).map((entry) => entry.id)).toEqual([1, 2]);
    const summary = await store.dispensaries.list();
    expect(summary.map((d) => [d.id, d.itemCount, d.activeItemCount])).toEqual([
      [a.id, 3, 3],
      [b.id, 2, 2],
    ]);
  });

  it('replace keeps the change time of entries whose price, stock and item state did not change', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const prices = (cents: number) => [
      priceEntry({ unit: 'gram' as const, amount: 1, priceCents: 1000, stock: 5 }),
      priceEntry({ unit: 'gram' as const, amount: 3.5, priceCents: cents, stock: 5 }),
    ];
    await store.menus.replace(a.id, [item(1, { prices: prices(3000) }), item(2, { prices: prices(3000) })]);
    const before = entries(await store.menus.read(a.id));
    await pause(5);
    await store.menus.replace(a.id, [
      item(1, { prices: prices(3100) }),
      item(2, { prices: prices(3000), active: false }),
    ]);
    const after = entries(await store.menus.read(a.id));
    expect(after[0]![4]).toBe(before[0]![4]);
    expect(after[1]![4]).not.toBe(before[1]![4]);
    // An item switched off: each of its entries changed, for inventory polls with `since`.
    expect(after[2]![4]).not.toBe(before[2]![4]);
    expect(after[3]![4]).not.toBe(before[3]![4]);
  });

  it('a changed item gains, loses and reorders price entries: each is read back as written', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    const gram = priceEntry({ unit: 'gram', amount: 1, priceCents: 1000, stock: 5 });
    const eighth = priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3500, stock: 2 });
    const ounce = priceEntry({ unit: 'ounce', amount: 1, priceCents: 20_000, stock: null });
    // A changed item is written over its stored row, and its entries position by position (rewriteItems).
    const menus = [
      [item(1, { prices: [gram, eighth, ounce] }), item(2, { prices: [gram] })],
      [item(1, { name: 'Fewer', prices: [gram] }), item(2, { name: 'More', prices: [gram, eighth, ounce] })],
      [item(1, { prices: [eighth, gram] }), item(2, { prices: [] })],
      [item(1, { prices: [] }), item(2, { prices: [ounce, gram] })],
    ];
    for (const menu of menus) {
      await store.menus.replace(a.id, menu);
      expect(withoutTimes(await store.menus.read(a.id))).toEqual(menu);
    }
  });

  it('an empty menu and an unknown dispensary read as []', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    expect(await store.menus.read(a.id)).toEqual([]);
    expect(await store.menus.read(999)).toEqual([]);
  });

  it('replace and upsert on an unknown dispensary: ConflictError, nothing written', async ({ store }) => {
    await expect(store.menus.replace(999, [item(1)])).rejects.toBeInstanceOf(ConflictError);
    await expect(store.menus.upsertItems(999, [item(1)])).rejects.toThrow('dispensary 999 does not exist');
    expect(await store.menus.read(999)).toEqual([]);
    expect(await store.changes.lastSeq()).toBe(0);
  });

  it('upsertItems creates and replaces by id, keeps the rest, and reports which were which', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [item(1), item(2), item(5)]);
    const result = await store.menus.upsertItems(a.id, [
      item(2, { name: 'Two again', prices: [] }),
      item(null, { name: 'Fresh' }),
      item(9, { name: 'Nine' }),
    ]);
    expect(result).toEqual({ created: [9, 10], updated: [2] });
    const read = await store.menus.read(a.id);
    expect(read.map((entry) => [entry.id, entry.name, entry.prices.length])).toEqual([
      [1, 'Item 1', 1],
      [2, 'Two again', 0],
      [5, 'Item 5', 1],
      [9, 'Nine', 1],
      [10, 'Fresh', 1],
    ]);
    const [entry] = await store.audit.list({ limit: 1 });
    expect(entry).toMatchObject({ action: 'menu.upsert', detail: { created: 2, updated: 1 } });
  });

  it('deleteItem removes one item with its entries; false for an unknown one', async ({ store }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [item(1), item(2)]);
    expect(await store.menus.deleteItem(a.id, 1)).toBe(true);
    expect((await store.menus.read(a.id)).map((entry) => entry.id)).toEqual([2]);
    const seq = await store.changes.lastSeq();
    expect(await store.menus.deleteItem(a.id, 1)).toBe(false);
    expect(await store.menus.deleteItem(999, 2)).toBe(false);
    expect(await store.changes.lastSeq()).toBe(seq);
    // Its id is not reused.
    expect((await store.menus.upsertItems(a.id, [item(null)])).created).toEqual([3]);
  });

  it('set one item active or inactive, and nothing else; its entries’ change time moves', async ({
    store,
  }) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(a.id, [item(1), item(2)]);
    const before = entries(await store.menus.read(a.id));
    await pause(5);
    expect(await store.menus.setItemActive(a.id, 2, false)).toBe(true);
    expect((await store.menus.read(a.id)).map((entry) => entry.active)).toEqual([true, false]);
    expect(await store.menus.setItemActive(a.id, 2, true)).toBe(true);
    const after = await store.menus.read(a.id);
    expect(after.map((entry) => entry.active)).toEqual([true, true]);
    expect(entries(after)[0]![4]).toBe(before[0]![4]);
    expect(entries(after)[1]![4]).not.toBe(before[1]![4]);
    expect(await store.menus.setItemActive(a.id, 99, false)).toBe(false);
  });
});

describe(`store.menus.setStock on ${DATABASE_KIND}`, () => {
  const prices = [
    priceEntry({ unit: 'gram' as const, amount: 1, priceCents: 1000, stock: 5 }),
    priceEntry({ unit: 'ounce' as const, amount: 0.125, priceCents: 3500, stock: null }),
  ];
  const menuOf = async (store: Store, count = 3) => {
    const a = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(
      a.id,
      Array.from({ length: count }, (_, index) => item(index + 1, { prices })),
    );
    return a.id;
  };

  it('sets every level named, and only those; the change time moves only where the level did', async ({
    store,
  }) => {
    const id = await menuOf(store);
    const before = entries(await store.menus.read(id));
    await pause(5);
    const updates: StockUpdate[] = [
      { itemId: 1, unit: 'gram', amount: 1, stock: 7 },
      { itemId: 2, unit: 'gram', amount: 1, stock: 5 },
      { itemId: 3, unit: 'ounce', amount: 0.125, stock: 2.5 },
      { itemId: 1, unit: 'ounce', amount: 0.125, stock: null },
    ];
    expect(await store.menus.setStock(id, updates, 'key:pos')).toBe(4);
    const after = entries(await store.menus.read(id));
    expect(after.map(([itemId, unit, amount, stock]) => [itemId, unit, amount, stock])).toEqual([
      [1, 'gram', 1, 7],
      [1, 'ounce', 0.125, null],
      [2, 'gram', 1, 5],
      [2, 'ounce', 0.125, null],
      [3, 'gram', 1, 5],
      [3, 'ounce', 0.125, 2.5],
    ]);
    const moved = after.map((entry, index) => entry[4] !== before[index]![4]);
    expect(moved).toEqual([true, false, false, false, false, true]);
    const [entry] = await store.audit.list({ limit: 1 });
    expect(entry).toMatchObject({
      actor: 'key:pos',
      action: 'inventory.update',
      detail: { price_entries: 4 },
    });
  });

  it('an entry named twice ends at the last level, and changed if any step changed it', async ({ store }) => {
    const id = await menuOf(store, 2);
    const before = entries(await store.menus.read(id));
    await pause(5);
    expect(
      await store.menus.setStock(id, [
        { itemId: 1, unit: 'gram', amount: 1, stock: 9 },
        { itemId: 1, unit: 'gram', amount: 1, stock: 5 },
        { itemId: 2, unit: 'gram', amount: 1, stock: 5 },
        { itemId: 2, unit: 'gram', amount: 1, stock: 5 },
      ]),
    ).toBe(4);
    const after = entries(await store.menus.read(id));
    expect(after[0]![3]).toBe(5);
    expect(after[0]![4]).not.toBe(before[0]![4]);
    expect(after[2]![3]).toBe(5);
    expect(after[2]![4]).toBe(before[2]![4]);
  });

  it('an update matching no entry sets nothing at all, and names every miss by its index', async ({
    store,
  }) => {
    const id = await menuOf(store);
    const before = await store.menus.read(id);
    const seq = await store.changes.lastSeq();
    const attempt = store.menus.setStock(id, [
      { itemId: 1, unit: 'gram', amount: 1, stock: 0 },
      { itemId: 99, unit: 'gram', amount: 1, stock: 1 },
      { itemId: 2, unit: 'gram', amount: 2, stock: 1 },
      { itemId: 2, unit: 'ounce', amount: 0.125, stock: 1 },
      { itemId: 3, unit: 'eighth' as never, amount: 1, stock: 1 },
    ]);
    await expect(attempt).rejects.toBeInstanceOf(UnmatchedStockError);
    await expect(attempt).rejects.toMatchObject({ unmatched: [1, 2, 4] });
    expect(await store.menus.read(id)).toEqual(before);
    expect(await store.changes.lastSeq()).toBe(seq);
    // Another dispensary's entries never match.
    const other = await store.dispensaries.create('B', 'digest-b');
    await expect(
      store.menus.setStock(other.id, [{ itemId: 1, unit: 'gram', amount: 1, stock: 0 }]),
    ).rejects.toMatchObject({ unmatched: [0] });
  });

  it('a batch larger than one statement’s chunk is one transaction: all set, or none', async ({ store }) => {
    // 2,674 entries: SQLite cuts them into statements of every size it keeps (512, 64, 8 and 1 rows).
    const count = 1_337;
    const id = await menuOf(store, count);
    const all: StockUpdate[] = Array.from({ length: count * 2 }, (_, index) => ({
      itemId: Math.floor(index / 2) + 1,
      unit: index % 2 === 0 ? 'gram' : 'ounce',
      amount: index % 2 === 0 ? 1 : 0.125,
      stock: index,
    }));
    // The miss comes last, after every chunk before it ran: they are rolled back.
    const missing = [...all, { itemId: count + 1, unit: 'gram' as const, amount: 1, stock: 1 }];
    await expect(store.menus.setStock(id, missing)).rejects.toMatchObject({ unmatched: [count * 2] });
    expect(
      entries(await store.menus.read(id)).every(
        ([, unit, , stock]) => stock === (unit === 'gram' ? 5 : null),
      ),
    ).toBe(true);
    expect(await store.menus.setStock(id, all)).toBe(count * 2);
    expect(entries(await store.menus.read(id)).map(([, , , stock]) => stock)).toEqual(
      all.map((u) => u.stock),
    );
  });

  it('an empty batch sets nothing and is audited, without a change notice (no cache drops)', async ({
    store,
  }) => {
    const id = await menuOf(store, 1);
    const seq = await store.changes.lastSeq();
    expect(await store.menus.setStock(id, [])).toBe(0);
    expect(await store.changes.lastSeq()).toBe(seq);
    const [entry] = await store.audit.list({ limit: 1 });
    expect(entry).toMatchObject({ action: 'inventory.update', detail: { price_entries: 0 } });
  });
});

describe(`concurrent menu writers on ${DATABASE_KIND}`, () => {
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

  plainIt(
    'two full menu replacements of one dispensary at once: both succeed, the last one wins whole',
    async () => {
      const dispensary = await stores[0]!.dispensaries.create('Contended', 'digest-contended');
      const menus = [0, 1].map((writer) =>
        Array.from({ length: 200 }, (_, index) =>
          item(index + 1, { name: `writer ${writer} item ${index + 1}` }),
        ),
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
    },
  );

  plainIt('stock batches racing a full replacement: each applies whole, or misses whole', async () => {
    const dispensary = await stores[0]!.dispensaries.create('Stocked', 'digest-stocked');
    const menu = Array.from({ length: 100 }, (_, index) => item(index + 1));
    await stores[0]!.menus.replace(dispensary.id, menu);
    const batch = (stock: number): StockUpdate[] =>
      menu.map((entry) => ({ itemId: entry.id!, unit: 'gram', amount: 1, stock }));
    const stocking = async () => {
      for (let round = 1; round <= 5; round++) await stores[1]!.menus.setStock(dispensary.id, batch(round));
    };
    const replacing = async () => {
      for (let round = 0; round < 5; round++) await stores[0]!.menus.replace(dispensary.id, menu);
    };
    if (onPostgres) await Promise.all([stocking(), replacing()]);
    else {
      await stocking();
      await replacing();
    }
    const levels = new Set(
      (await stores[0]!.menus.read(dispensary.id)).map((entry) => entry.prices[0]!.stock),
    );
    // One level for every entry: a replacement (null) or a whole batch, never half of one.
    expect(levels.size).toBe(1);
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
      return item(id, {
        name: `version ${version} item ${id}`,
        prices:
          id % 3 === 0
            ? []
            : [
                priceEntry({ unit: 'ounce', amount: 0.125, priceCents: version * 100_000 + id, stock: null }),
                priceEntry({
                  unit: 'gram',
                  amount: 1,
                  priceCents: version * 100_000 + id + 1,
                  stock: version,
                }),
              ],
      });
    });
  /** What a read of menu `version` gives: items by id, entries in their given order (times aside). */
  const expected = (version: number) => [...menu(version)].sort((a, b) => a.id! - b.id!);

  plainIt(
    'a read sees one whole menu, ordered, with items without prices, never half of a write',
    async () => {
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
          for (let round = 1; round <= 30; round++)
            await writer.menus.replace(dispensary.id, menu(round % 2));
        },
      );
      expect(mixed).toBe(0);
      // The reads did overlap the writes: each menu was read.
      expect(Math.min(...seen)).toBeGreaterThan(0);
      expect(withoutTimes(await reader.menus.read(dispensary.id))).toEqual(versions[0]);
    },
  );

  plainIt('reads on the store that is writing see whole menus, never its open write', async () => {
    const dispensary = await writer.dispensaries.create('Self', 'digest-self');
    const own = (version: number) =>
      Array.from({ length: 40 }, (_, index) =>
        item(index + 1, {
          name: `version ${version} item ${index + 1}`,
          prices:
            index % 4 === 0
              ? []
              : [priceEntry({ unit: 'gram', amount: 1, priceCents: version * 1000 + index, stock: version })],
        }),
      );
    const versions = [withoutTimes(own(0)), withoutTimes(own(1))];
    await writer.menus.replace(dispensary.id, own(0));
    // Each read waits for the store's write transaction to end, and the next write for the read.
    const { seen, mixed } = await readWhileWriting(
      async () => withoutTimes(await writer.menus.read(dispensary.id)),
      versions,
      async () => {
        for (let round = 1; round <= 10; round++) await writer.menus.replace(dispensary.id, own(round % 2));
      },
    );
    expect(mixed).toBe(0);
    expect(Math.min(...seen)).toBeGreaterThan(0);
    expect(withoutTimes(await writer.menus.read(dispensary.id))).toEqual(versions[0]);
  });
});
