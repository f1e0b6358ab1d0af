import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MenuItemInput } from '../../src/domain/item.js';
import { ServiceError } from '../../src/services/errors.js';
import {
  priceEntry,
  SPEC_ONLY_FIELDS,
  SPEC_ONLY_PRICE_FIELDS,
  SPEC_ONLY_RECORD_FIELDS,
} from '../domain/item-builder.js';
import { BLUE_DREAM } from '../helpers/fixtures.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';

/** The problems a parse or validation rejected the menu with; fails when it did not reject. */
function rejection(work: () => unknown): ServiceError {
  try {
    work();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected the menu to be rejected');
}

function problemList(error: ServiceError): string[] {
  return (error.problems ?? []).map((problem) => `${problem.field}: ${problem.message}`);
}

/** Runs SQL on the runtime's database directly, beside the store: SQLite file or PostgreSQL URL. */
async function query(runtime: TestRuntime, text: string, params: unknown[] = []): Promise<unknown[]> {
  if (runtime.databaseKind === 'sqlite') {
    const db = new Database(runtime.database);
    try {
      const statement = db.prepare(text);
      if (statement.reader) return statement.all(...params);
      statement.run(...params);
      return [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: runtime.database });
  await client.connect();
  try {
    // PostgreSQL numbers its parameters; the SQL here is written with `?` for both.
    let index = 0;
    const result = await client.query(
      text.replace(/\?/g, () => `$${++index}`),
      params,
    );
    return result.rows;
  } finally {
    await client.end();
  }
}

/** Everything the database holds of a dispensary's menu, updated_at included: "exactly as it was". */
async function rawMenu(runtime: TestRuntime, dispensaryId: number): Promise<unknown> {
  return {
    items: await query(runtime, 'SELECT * FROM items WHERE dispensary_id = ? ORDER BY id', [dispensaryId]),
    prices: await query(
      runtime,
      'SELECT * FROM price_entries WHERE dispensary_id = ? ORDER BY item_id, position',
      [dispensaryId],
    ),
  };
}

/** Makes every insert of a price entry of item 999 fail, inside whatever transaction inserts it. */
async function failOnItem999(runtime: TestRuntime): Promise<void> {
  if (runtime.databaseKind === 'sqlite') {
    await query(
      runtime,
      `CREATE TRIGGER fail_late BEFORE INSERT ON price_entries WHEN NEW.item_id = 999
       BEGIN SELECT RAISE(ABORT, 'boom'); END`,
    );
    return;
  }
  await query(
    runtime,
    `CREATE FUNCTION fail_late() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN IF NEW.item_id = 999 THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`,
  );
  await query(
    runtime,
    'CREATE TRIGGER fail_late BEFORE INSERT ON price_entries FOR EACH ROW EXECUTE FUNCTION fail_late()',
  );
}

async function stopFailing(runtime: TestRuntime): Promise<void> {
  if (runtime.databaseKind === 'sqlite') {
    await query(runtime, 'DROP TRIGGER fail_late');
    return;
  }
  await query(runtime, 'DROP TRIGGER fail_late ON price_entries');
  await query(runtime, 'DROP FUNCTION fail_late()');
}

describe('MenuService.parse: JSON in every naming', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime();
  });
  afterAll(() => runtime.close());

  it('reads canonical, Form A and both Form B spellings into the same items', () => {
    const { menus } = runtime.services;
    const { brand, prices, product_type, product_subtype, ...common } = BLUE_DREAM;
    const formA = { ...common, brand_name: brand, product_type, product_subtype, product_prices: prices };
    const formBTable = { ...common, type: product_type, subtype: product_subtype, brand, variants: prices };
    const formBSample = {
      ...common,
      type: product_type,
      subtype: product_subtype,
      brand_name: brand,
      prices,
    };
    const formBBoth = { ...formBTable, brand_name: brand, prices };

    const expected = menus.parse(JSON.stringify([BLUE_DREAM]), 'json');
    expect(expected).toEqual([
      expect.objectContaining({
        id: 3,
        brand: 'Emerald Farms',
        productType: 'Flower',
        productSubtype: 'Hybrid',
        thc: 21.5,
        prices: [
          priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: 10 }),
          priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3850, stock: 0 }),
        ],
      }),
    ]);
    for (const raw of [formA, formBTable, formBSample, formBBoth]) {
      expect(menus.parse(JSON.stringify([raw]), 'json')).toEqual(expected);
    }
  });

  it('accepts a menu mixing namings item by item', () => {
    const items = runtime.services.menus.parse(
      JSON.stringify([
        { id: 1, name: 'A', brand_name: 'X', product_type: 'Edible', product_prices: [] },
        { id: 2, name: 'B', type: 'Vape', brand: 'Y', variants: [{ unit: 'gram', amount: 0.5, price: 30 }] },
        { id: 3, name: 'C', product_type: 'Gear' },
      ]),
      'json',
    );
    expect(items.map((item) => [item.id, item.brand, item.productType, item.prices.length])).toEqual([
      [1, 'X', 'Edible', 0],
      [2, 'Y', 'Vape', 1],
      [3, '', 'Gear', 0],
    ]);
  });

  it('rejects text that is not JSON, and JSON that is not an array', () => {
    const { menus } = runtime.services;
    const notJson = rejection(() => menus.parse('[{"name": "A",', 'json'));
    expect(notJson.code).toBe('invalid_request');
    expect(notJson.message).toMatch(/not valid JSON/);
    const notArray = rejection(() => menus.parse('{"items": []}', 'json'));
    expect(problemList(notArray)).toEqual(['menu: must be a JSON array of items']);
  });

  it('reports every rejected item with its index and reason, not just the first', () => {
    const error = rejection(() =>
      runtime.services.menus.parse(
        JSON.stringify([
          { id: 1, name: 'Fine', product_type: 'Flower' },
          { id: 2, name: 'Bad type', product_type: 'Mushroom' },
          {
            id: 3,
            name: 'Bad price',
            product_type: 'Flower',
            prices: [{ unit: 'gram', amount: 1, price: 9.999 }],
          },
          { id: 1, name: 'Repeated id', product_type: 'Flower' },
          { id: 5, name: 'Disagreeing', product_type: 'Flower', brand: 'A', brand_name: 'B' },
          { id: 6, product_type: 'Wax', colour: 'amber' },
        ]),
        'json',
      ),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/^The menu was rejected \(6 problems\), nothing was changed/);
    expect(problemList(error)).toEqual([
      '[1].product_type: must be one of Flower, Edible, Concentrate, Tincture, Vape, Drink, Wax, Preroll, Gear, Topical, Other',
      '[2].prices[0].price: must be a non-negative amount with at most two decimals',
      '[3].id: repeats id 1 of item [0]',
      '[4].brand_name: disagrees with brand; send one of them',
      '[5].colour: is not a known field',
      '[5].name: is required',
    ]);
  });
});

describe('MenuService.parse: CSV', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime();
  });
  afterAll(() => runtime.close());
  const parse = (text: string) => runtime.services.menus.parse(text, 'csv');
  const csvRejection = (text: string) => problemList(rejection(() => parse(text)));

  it('reads one row per price entry, grouping the rows of an item by id, wherever they are', () => {
    const items = parse(
      [
        'id,name,brand,product_type,unit,amount,price,stock',
        '4,Blue Dream,Emerald,Flower,gram,1,12,10',
        '9,Gummies,Baked,Edible,unit,10,20,',
        '4,,,,ounce,0.125,38.5,2',
        '4,Blue Dream,Emerald,Flower,gram,3.5,35,',
      ].join('\n'),
    );
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ id: 4, name: 'Blue Dream', brand: 'Emerald', productType: 'Flower' });
    expect(items[0]!.prices).toEqual([
      priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: 10 }),
      priceEntry({ unit: 'ounce', amount: 0.125, priceCents: 3850, stock: 2 }),
      priceEntry({ unit: 'gram', amount: 3.5, priceCents: 3500, stock: null }),
    ]);
    expect(items[1]).toMatchObject({ id: 9, prices: [{ unit: 'unit', amount: 10, priceCents: 2000 }] });
  });

  it('without ids, groups consecutive rows of the same name; the same name later is another item', () => {
    const items = parse(
      [
        'name,product_type,unit,amount,price',
        'Pre-roll,Preroll,unit,1,8',
        'Pre-roll,Preroll,unit,5,35',
        'Tincture,Tincture,unit,1,40',
        'Pre-roll,Preroll,unit,1,9',
      ].join('\n'),
    );
    expect(items.map((item) => [item.id, item.name, item.prices.map((p) => p.priceCents)])).toEqual([
      [null, 'Pre-roll', [800, 3500]],
      [null, 'Tincture', [4000]],
      [null, 'Pre-roll', [900]],
    ]);
  });

  it('splits lists on ";", reads every column, and keeps an item without price cells', () => {
    const [item, noPrices] = parse(
      [
        'id,name,brand,product_type,product_subtype,description,image,cbd,cbn,thc,total_thc,total_cbd,flavors,effects,conditions,active,unit,amount,price,stock',
        '1,Blue,Em,Flower,Hybrid,"Sweet, fruity ""blue""",https://img.example/b.jpg,0.1,0.05,21.5,210,1,Berry; Sweet ;,Happy;Relaxed,Stress,true,gram,1,12,3',
        '2,Balm,,Topical,,,,,,,,,,,,,,,,',
      ].join('\n'),
    );
    expect(item).toEqual({
      id: 1,
      name: 'Blue',
      brand: 'Em',
      productType: 'Flower',
      productSubtype: 'Hybrid',
      description: 'Sweet, fruity "blue"',
      image: 'https://img.example/b.jpg',
      cbd: 0.1,
      cbn: 0.05,
      thc: 21.5,
      totalThc: 210,
      totalCbd: 1,
      flavors: ['Berry', 'Sweet'],
      effects: ['Happy', 'Relaxed'],
      conditions: ['Stress'],
      active: true,
      ...SPEC_ONLY_FIELDS,
      prices: [priceEntry({ unit: 'gram', amount: 1, priceCents: 1200, stock: 3 })],
    });
    expect(noPrices).toMatchObject({ id: 2, productType: 'Topical', prices: [], flavors: [], thc: null });
  });

  it('reads the active column as true/yes/1, false/no/0 in any case, and true when empty', () => {
    const cells = ['true', 'YES', '1', 'False', 'no', '0', ''];
    const rows = cells.map((cell, index) => `${index + 1},Item ${index},Gear,${cell}`);
    const items = parse(['id,name,product_type,active', ...rows].join('\n'));
    expect(items.map((item) => item.active)).toEqual([true, true, true, false, false, false, true]);
    expect(csvRejection('id,name,product_type,active\n1,A,Gear,maybe')).toEqual([
      'line 2, active: must be true or false',
    ]);
  });

  it('accepts a byte order mark, CRLF line ends, Form A/B column names and a column order of its own', () => {
    const items = parse(
      '\uFEFFprice,amount,unit,type,brand_name,name,id\r\n12.5,1,gram,vape,Cloud,Cart,3\r\n20,2,gram,,,,3\r\n',
    );
    expect(items).toEqual([
      expect.objectContaining({
        id: 3,
        name: 'Cart',
        brand: 'Cloud',
        productType: 'Vape',
        prices: [
          priceEntry({ unit: 'gram', amount: 1, priceCents: 1250, stock: null }),
          priceEntry({ unit: 'gram', amount: 2, priceCents: 2000, stock: null }),
        ],
      }),
    ]);
  });

  it('rejects an unknown column, naming it and the known ones', () => {
    expect(csvRejection('id,name,product_type,colour\n1,A,Gear,green')).toEqual([
      expect.stringMatching(/^line 1, colour: is not a known column \(known: id, name, .*barcode\)$/),
    ]);
  });

  it('rejects a bad number with its line number', () => {
    expect(
      csvRejection(
        'id,name,product_type,thc,unit,amount,price\n1,A,Flower,,gram,1,5\n2,B,Flower,lots,gram,1,5',
      ),
    ).toEqual(['line 3, thc: must be a number']);
    expect(csvRejection('id,name,product_type\n1.5,A,Flower')).toContain(
      'line 2, id: must be a whole number',
    );
  });

  it('names the line of the price row that is wrong, not the line its item began on', () => {
    expect(
      csvRejection(
        [
          'id,name,product_type,unit,amount,price',
          '1,A,Flower,gram,1,5',
          '1,,,gram,2,9.999',
          '1,,,litre,3,12',
          '1,,,gram,1,6',
        ].join('\n'),
      ),
    ).toEqual([
      'line 3, prices[1].price: must be a non-negative amount with at most two decimals',
      'line 4, prices[2].unit: must be one of gram, ounce, unit',
      expect.stringMatching(/^line 5, prices\[3\]: repeats unit gram with amount 1/),
    ]);
  });

  it('rejects item fields that disagree across the rows of one item', () => {
    expect(
      csvRejection(
        [
          'id,name,brand,product_type,unit,amount,price',
          '1,A,Acme,Flower,gram,1,5',
          '1,A,Other,Flower,gram,2,9',
          '1,B,,Edible,gram,3,12',
        ].join('\n'),
      ),
    ).toEqual([
      'line 3, brand: differs from the first row of this item; leave it empty or repeat it',
      'line 4, name: differs from the first row of this item; leave it empty or repeat it',
      'line 4, product_type: differs from the first row of this item; leave it empty or repeat it',
    ]);
  });

  it('reports every rejected row with its line and reason, each once', () => {
    const error = rejection(() =>
      parse(
        [
          'id,name,product_type,thc,active,unit,amount,price',
          '1,Good,Flower,20,true,gram,1,10',
          '2,Bad thc,Flower,200,true,gram,1,10',
          '3,,Flower,,true,gram,1,10',
          '4,Bad type,Soap,,true,gram,1,10',
          '5,Bad active,Flower,,sometimes,gram,1,10',
          '6,Bad price,Flower,,true,gram,1,ten',
          '7,Bad unit,Flower,,true,pound,1,10',
          '2,,,,,gram,0,10',
          '2,,,,false,gram,2,10',
        ].join('\n'),
      ),
    );
    expect(error.message).toMatch(/^The menu was rejected \(9 problems\), nothing was changed/);
    expect(problemList(error)).toHaveLength(9);
    expect(problemList(error)).toEqual(
      expect.arrayContaining([
        'line 3, thc: must be between 0 and 100',
        'line 4, name: is required',
        expect.stringMatching(/^line 5, product_type: must be one of/),
        'line 6, active: must be true or false',
        'line 7, price: must be a number',
        'line 7, prices[0].price: must be a non-negative amount with at most two decimals',
        'line 8, prices[0].unit: must be one of gram, ounce, unit',
        'line 9, prices[1].amount: must be a number above 0 and at most 1000000',
        'line 10, active: differs from the first row of this item; leave it empty or repeat it',
      ]),
    );
  });

  it('rejects text that is not CSV', () => {
    expect(csvRejection('id,name\n1,"unterminated')).toEqual([expect.stringMatching(/^csv: /)]);
  });
});

describe('MenuService.replace', () => {
  let runtime: TestRuntime;
  let id: number;
  beforeEach(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    id = runtime.seed.dispensaryId;
  });
  afterEach(() => runtime.close());

  const item = (name: string, itemId?: number): Record<string, unknown> => ({
    ...(itemId === undefined ? {} : { id: itemId }),
    name,
    product_type: 'Flower',
    prices: [{ unit: 'gram', amount: 1, price: 10 }],
  });
  const ids = async () =>
    (await runtime.services.menus.items(id)).map((menuItem) => [menuItem.id, menuItem.name]);

  it('replaces the whole menu and reports the counts', async () => {
    const { menus } = runtime.services;
    const report = await menus.replace(
      id,
      menus.validate([item('A', 10), { ...item('B', 11), active: false }, { ...item('C', 12), prices: [] }]),
    );
    expect(report).toEqual({ dispensaryId: id, dryRun: false, items: 3, activeItems: 2, priceEntries: 2 });
    expect(await ids()).toEqual([
      [10, 'A'],
      [11, 'B'],
      [12, 'C'],
    ]);
  });

  it('keeps the ids it is given and numbers the others after the highest, in file order', async () => {
    const { menus } = runtime.services;
    // The menu in place goes up to id 7; the file itself up to 5.
    await menus.replace(
      id,
      menus.validate([item('Keeps 5', 5), item('New 1'), item('Keeps 2', 2), item('New 2')]),
    );
    expect(await ids()).toEqual([
      [2, 'Keeps 2'],
      [5, 'Keeps 5'],
      [8, 'New 1'],
      [9, 'New 2'],
    ]);
    await menus.replace(id, menus.validate([item('New 3'), item('Keeps 40', 40)]));
    expect(await ids()).toEqual([
      [40, 'Keeps 40'],
      [41, 'New 3'],
    ]);
  });

  it('numbers a first menu from 1', async () => {
    const { menus, dispensaries } = runtime.services;
    const fresh = await dispensaries.create('Fresh');
    await menus.replace(fresh.id, menus.validate([item('A'), item('B'), item('C')]));
    expect((await menus.items(fresh.id)).map((menuItem) => menuItem.id)).toEqual([1, 2, 3]);
  });

  it('with dry run checks and counts but changes nothing', async () => {
    const { menus, store } = runtime.services;
    const before = await rawMenu(runtime, id);
    const seq = await store.changes.lastSeq();
    const report = await menus.replace(id, menus.validate([item('A', 1), item('B')]), true);
    expect(report).toEqual({ dispensaryId: id, dryRun: true, items: 2, activeItems: 2, priceEntries: 2 });
    expect(await rawMenu(runtime, id)).toEqual(before);
    expect(await store.changes.lastSeq()).toBe(seq);
    await expect(menus.replace(9999, [], true)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses an unknown dispensary', async () => {
    const { menus } = runtime.services;
    await expect(menus.replace(9999, menus.validate([item('A')]))).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('menu-api dispensary list'),
    });
  });

  it('an import rejected by validation leaves the previous menu exactly as it was', async () => {
    const { menus } = runtime.services;
    const before = await rawMenu(runtime, id);
    const bad = JSON.stringify([item('Good', 1), item('Good too', 2), { ...item('Bad', 3), thc: 'high' }]);
    await expect(async () => menus.replace(id, menus.parse(bad, 'json'))).rejects.toBeInstanceOf(
      ServiceError,
    );
    const badCsv = 'id,name,product_type,unit,amount,price\n1,A,Flower,gram,1,5\n2,B,Flower,gram,1,5.555\n';
    await expect(async () => menus.replace(id, menus.parse(badCsv, 'csv'))).rejects.toBeInstanceOf(
      ServiceError,
    );
    expect(await rawMenu(runtime, id)).toEqual(before);
  });

  it('an import that fails half way inside the transaction leaves the previous menu exactly as it was', async () => {
    const { menus, store } = runtime.services;
    const formA = {
      username: runtime.seed.username,
      password: runtime.seed.password,
      collective_token: runtime.seed.token,
    };
    const served = (await runtime.app.inject({ method: 'POST', url: '/menu', payload: formA })).json();
    const before = await rawMenu(runtime, id);
    const seq = await store.changes.lastSeq();

    // Fails on the price of item 999, after the old menu was deleted and the new items were inserted.
    await failOnItem999(runtime);
    const big = Array.from({ length: 1_500 }, (_, index) => item(`Item ${index + 1}`, index + 1));
    const items: MenuItemInput[] = menus.validate(big);
    await expect(menus.replace(id, items)).rejects.toThrow(/boom/);

    expect(await rawMenu(runtime, id)).toEqual(before);
    expect(await store.changes.lastSeq()).toBe(seq);
    expect((await runtime.app.inject({ method: 'POST', url: '/menu', payload: formA })).json()).toEqual(
      served,
    );

    // The same import goes through once the fault is gone: the failure above was the trigger's.
    await stopFailing(runtime);
    await menus.replace(id, items);
    expect((await menus.items(id)).length).toBe(1_500);
  });
});

describe('MenuService.export: what export writes, import reads back unchanged', () => {
  /** The text fields of the item with characters a CSV or JSON writer could get wrong. */
  const TINCTURE_TEXT = {
    id: 12,
    name: 'Tinctüre «Calm» 日本',
    brand: 'Drops, "Inc."',
    product_type: 'Tincture',
    product_subtype: 'CBD',
    description: 'Line one,\nline two; with "quotes" and commas.',
  };
  const RICH_MENU = [
    ...SAMPLE_MENU,
    {
      ...TINCTURE_TEXT,
      cbd: 33.33,
      cbn: 1.5,
      total_cbd: 1000,
      flavors: ['Mint', 'Lemon Zest'],
      effects: ['Calm', 'Focused'],
      conditions: ['Anxiety', 'Insomnia', 'Pain'],
      prices: [
        { unit: 'unit', amount: 1, price: 45.99, stock: 3 },
        { unit: 'unit', amount: 3, price: 120, stock: null },
        { unit: 'gram', amount: 0.25, price: 0.01 },
      ],
    },
    {
      id: 20,
      name: 'Rolling Papers',
      product_type: 'Gear',
      active: false,
      prices: [{ unit: 'unit', amount: 1, price: 1.5 }],
    },
  ];
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime({ menu: RICH_MENU });
  });
  afterAll(() => runtime.close());

  it.each([
    ['canonical', 'json'],
    ['a', 'json'],
    ['b', 'json'],
    ['canonical', 'csv'],
  ] as const)(
    'form %s as %s: export, import into another dispensary, export again gives the same text',
    async (form, format) => {
      const { menus, dispensaries } = runtime.services;
      const first = await menus.export(runtime.seed.dispensaryId, form, format);
      const copy = await dispensaries.create(`Copy ${form} ${format}`);
      await menus.replace(copy.id, menus.parse(first, format));
      const second = await menus.export(copy.id, form, format);
      expect(second).toBe(first);
      expect(first.length).toBeGreaterThan(200);
    },
  );

  it('the canonical exports keep every field and every item', async () => {
    const { menus } = runtime.services;
    const json = JSON.parse(await menus.export(runtime.seed.dispensaryId, 'canonical', 'json'));
    expect(json.map((record: { id: number }) => record.id)).toEqual([1, 2, 3, 7, 12, 20]);
    expect(json[4]).toEqual({
      ...TINCTURE_TEXT,
      image: null,
      cbd: 33.33,
      cbn: 1.5,
      thc: null,
      total_thc: null,
      total_cbd: 1000,
      flavors: ['Mint', 'Lemon Zest'],
      effects: ['Calm', 'Focused'],
      conditions: ['Anxiety', 'Insomnia', 'Pain'],
      active: true,
      ...SPEC_ONLY_RECORD_FIELDS,
      prices: [
        { unit: 'unit', amount: 1, price: 45.99, stock: 3, ...SPEC_ONLY_PRICE_FIELDS },
        { unit: 'unit', amount: 3, price: 120, stock: null, ...SPEC_ONLY_PRICE_FIELDS },
        { unit: 'gram', amount: 0.25, price: 0.01, stock: null, ...SPEC_ONLY_PRICE_FIELDS },
      ],
    });
    const csv = await menus.export(runtime.seed.dispensaryId, 'canonical', 'csv');
    expect(csv.split('\n')[0]).toBe(
      'id,name,brand,product_type,product_subtype,description,image,cbd,cbn,thc,total_thc,total_cbd,flavors,effects,conditions,active,tags,staff_pick,external_id,strain,cannabinoids,terpenes,batch,serving,images,unit,amount,price,stock,label,med_price,sku,barcode',
    );
    expect(csv).toContain('Anxiety;Insomnia;Pain');
  });

  it('a form export is that form’s view: Form A every item with its flag, Form B only active items', async () => {
    const { menus } = runtime.services;
    const formA = JSON.parse(await menus.export(runtime.seed.dispensaryId, 'a', 'json'));
    expect(formA.map((record: { id: number; active: boolean }) => [record.id, record.active])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [7, true],
      [12, true],
      [20, false],
    ]);
    expect(Object.keys(formA[0]).sort()).toEqual([
      'active',
      'brand_name',
      'description',
      'id',
      'name',
      'product_prices',
      'product_subtype',
      'product_type',
    ]);
    const formB = JSON.parse(await menus.export(runtime.seed.dispensaryId, 'b', 'json'));
    expect(formB.map((record: { id: number }) => record.id)).toEqual([1, 3, 7, 12]);
    expect(formB[0]).toHaveProperty('variants');
    expect(formB[0]).toHaveProperty('brand_name');
  });

  it('refuses CSV in a form’s names and a form that does not exist', async () => {
    const { menus } = runtime.services;
    await expect(menus.export(runtime.seed.dispensaryId, 'a', 'csv')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('--format json'),
    });
    await expect(menus.export(runtime.seed.dispensaryId, 'z', 'json')).rejects.toMatchObject({
      message: expect.stringContaining('Use one of: canonical, a, b'),
    });
    await expect(menus.export(9999, 'canonical', 'json')).rejects.toMatchObject({ code: 'not_found' });
  });
});
