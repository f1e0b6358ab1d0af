import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { fromCanonicalRecord, toCanonicalRecord } from '../../../src/domain/canonical.js';
import type { MenuItem, MenuItemInput } from '../../../src/domain/item.js';
import {
  CANONICAL_ITEM_EXAMPLE,
  ITEM_FIELD_LIST,
  type NamedField,
  PRICE_FIELD_LIST,
} from '../../../src/domain/item-schema.js';
import { FIELDS_JSON_VERSION } from '../../../src/store/item-rows.js';
import { SPEC_ONLY_ENTRY_FIELDS, SPEC_ONLY_FIELDS } from '../../domain/item-builder.js';
import { DATABASE_KIND } from '../../helpers/database.js';
import { it, item } from './fixtures.js';

// A write of items compares each item with the JSON the store keeps of its fields (items.fields_json)
// and with its price entries' rows (store/item-folds.ts, KeptItem): these hold that every field still
// counts, and that an item sent again as it is stored is neither written nor recorded.

/** The example item with every field (documents included), and a plain one with the specification's fields. */
const RICH = { ...fromCanonicalRecord(CANONICAL_ITEM_EXAMPLE), id: 1 };
const PLAIN = item(2, { thc: 18, flavors: ['Pine', 'Lemon'] }) as MenuItem;
const MISSING: Record<string, unknown> = { ...SPEC_ONLY_FIELDS, ...SPEC_ONLY_ENTRY_FIELDS };
/** A value of each field other than its missing one (the example has no serving). */
const PRESENT: Record<string, unknown> = {
  ...RICH,
  ...RICH.prices[0],
  serving: { servings_per_pack: 10, thc_mg_per_serving: 5, cbd_mg_per_serving: null },
};

/** Another valid value of the field than `value`: every kind of field, and a document both ways. */
function otherValue(field: NamedField, value: unknown): unknown {
  switch (field.kind) {
    case 'text':
      return `${value as string}+`;
    case 'url':
      return value === null ? 'https://images.example.com/other.jpg' : null;
    case 'category':
    case 'unit':
      return (field.schema as { enum: string[] }).enum.find((choice) => choice !== value);
    case 'number':
      return value === null ? 1 : (value as number) + 0.5;
    case 'measure':
      return (value as number) * 2;
    case 'money':
      return value === null ? 150 : (value as number) + 1;
    case 'list':
      return [...(value as string[]), 'Added'];
    case 'flag':
      return !value;
    case 'document':
      return JSON.stringify(value) === JSON.stringify(MISSING[field.key])
        ? PRESENT[field.key]
        : MISSING[field.key];
    default:
      throw new Error(`no other value for a field of kind ${field.kind}`);
  }
}

const withField = (base: MenuItem, field: NamedField, value: unknown): MenuItem => ({
  ...base,
  [field.key]: value,
});
const withEntryField = (base: MenuItem, field: NamedField, value: unknown): MenuItem => ({
  ...base,
  prices: base.prices.map((price, index) => (index === 0 ? { ...price, [field.key]: value } : price)),
});

/** One item changed in one field: which field, and the item before and after. */
const CHANGES = [RICH, PLAIN].flatMap((base) => [
  ...ITEM_FIELD_LIST.filter((field) => field.kind !== 'id' && field.kind !== 'entries').map((field) => ({
    field: field.name,
    before: base,
    after: withField(base, field, otherValue(field, (base as Record<string, unknown>)[field.key])),
  })),
  ...PRICE_FIELD_LIST.map((field) => ({
    field: `prices[0].${field.name}`,
    before: base,
    after: withEntryField(
      base,
      field,
      otherValue(field, (base.prices[0] as Record<string, unknown>)[field.key]),
    ),
  })),
]);

const json = (menuItem: MenuItemInput) => JSON.stringify(toCanonicalRecord(menuItem as MenuItem));

describe(`unchanged writes of items on ${DATABASE_KIND}`, () => {
  it('a change of any one field of an item or of a price entry is written and recorded, by a full or a partial sync; sent again, it is not', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(id, [RICH, PLAIN]);
    const times = async () =>
      (await store.database.selectFrom('items').select(['id', 'updated_at']).orderBy('id').execute()).map(
        (row) => `${row.id} ${row.updated_at}`,
      );
    expect(CHANGES).toHaveLength(2 * (ITEM_FIELD_LIST.length - 2 + PRICE_FIELD_LIST.length));
    for (const [index, { field, before, after }] of CHANGES.entries()) {
      expect(json(after), field).not.toBe(json(before));
      const others = [RICH, PLAIN].filter((other) => other.id !== before.id);
      // A full sync changes it, a partial one puts it back, by turns.
      const head = await store.menuChanges.head();
      if (index % 2 === 0)
        await store.menus.replace(
          id,
          [after, ...others].sort((a, b) => a.id - b.id),
        );
      else await store.menus.upsertItems(id, [after]);
      const { changes } = await store.menuChanges.page(id, head, 10);
      expect(
        changes.map((change) => change.itemId),
        field,
      ).toEqual([after.id]);
      const stored = (await store.menus.read(id)).find((entry) => entry.id === after.id)!;
      expect(json(stored), field).toBe(json(after));

      // The same again: nothing written, nothing recorded.
      const seq = await store.changes.lastSeq();
      const feedHead = await store.menuChanges.head();
      const written = await times();
      await store.menus.replace(
        id,
        [after, ...others].sort((a, b) => a.id - b.id),
      );
      await store.menus.upsertItems(id, [after]);
      expect(await store.changes.lastSeq(), field).toBe(seq);
      expect(await store.menuChanges.head(), field).toBe(feedHead);
      expect(await times(), field).toEqual(written);

      await store.menus.upsertItems(id, [before]);
    }
  });

  it('an item is written exactly when some field of it differs from the stored one, whatever the fields hold', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    // Values a database holds as given: text without NUL (PostgreSQL refuses it), finite numbers.
    const text = fc.string({ unit: 'grapheme', maxLength: 8 }).map((value) => value.replaceAll('\0', ''));
    const values: Record<string, fc.Arbitrary<unknown>> = {
      text,
      url: fc.option(text.map((value) => `https://example.com/${value}`)),
      number: fc.option(fc.constantFrom(0, 0.1, 0.1 + 0.2, 99.99, 1e-7, 1_000_000)),
      list: fc.array(text, { maxLength: 3 }),
      flag: fc.boolean(),
      document: fc.oneof(
        fc.constant(null),
        fc.constant([]),
        fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value))),
      ),
    };
    const editable = ITEM_FIELD_LIST.filter((field) => field.kind in values);
    const edits = fc.array(
      fc
        .constantFrom(...editable)
        .chain((field) => values[field.kind]!.map((value) => [field.key, value] as const)),
      { maxLength: 3 },
    );
    const edited = (base: MenuItem, changes: (readonly [string, unknown])[]) =>
      ({ ...base, ...Object.fromEntries(changes) }) as MenuItem;
    await fc.assert(
      fc.asyncProperty(edits, edits, fc.boolean(), async (first, second, same) => {
        const before = edited(RICH, first);
        // Often the same fields drawn again, so that equal values reach the comparison too.
        const after = edited(before, same ? first : second);
        await store.menus.replace(id, [before]);
        await store.menus.replace(id, [after]);
        // An inactive item changes silently in the feed: the audit's count of written items says it.
        const [audited] = await store.audit.list({ limit: 1 });
        expect(audited?.detail.written).toBe(json(after) === json(before) ? 0 : 1);
        expect(json((await store.menus.read(id))[0]!)).toBe(json(after));
      }),
      { numRuns: 40 },
    );
  });

  it('after a stock batch or a switch of active, a sync of the item as it now is writes nothing, and of the item as it was writes it', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    await store.menus.replace(id, [RICH, PLAIN]);
    const [entry] = RICH.prices;
    await store.menus.setStock(id, [{ itemId: 1, unit: entry!.unit, amount: entry!.amount, stock: 7 }]);
    await store.menus.setItemActive(id, 2, false);
    const stock = PRICE_FIELD_LIST.find((field) => field.name === 'stock')!;
    const now = [withEntryField(RICH, stock, 7), { ...PLAIN, active: false }];

    let seq = await store.changes.lastSeq();
    await store.menus.replace(id, now);
    await store.menus.upsertItems(id, now);
    expect(await store.changes.lastSeq()).toBe(seq);

    const head = await store.menuChanges.head();
    await store.menus.replace(id, [RICH, PLAIN]);
    const { changes } = await store.menuChanges.page(id, head, 10);
    expect(changes.map((change) => [change.itemId, change.type])).toEqual([
      [1, 'item.upserted'],
      [2, 'item.upserted'],
    ]);
    seq = await store.changes.lastSeq();
    await store.menus.replace(id, [RICH, PLAIN]);
    expect(await store.changes.lastSeq()).toBe(seq);
  });

  it('an item whose kept JSON is stale is compared whole: unchanged, its kept JSON is renewed and nothing recorded; changed, it is written', async ({
    store,
  }) => {
    const { id } = await store.dispensaries.create('A', 'digest-a');
    const third = item(3, { active: false }) as MenuItem;
    await store.menus.replace(id, [RICH, PLAIN, third]);
    const kept = async () =>
      (await store.database.selectFrom('items').select(['id', 'fields_json']).orderBy('id').execute()).map(
        (row) => row.fields_json,
      );
    const current = await kept();
    // Missing (written before 0011), of another field list (written before a field was added).
    const stale = async () => {
      await store.database.updateTable('items').set({ fields_json: null }).where('id', '=', 1).execute();
      await store.database
        .updateTable('items')
        .set({ fields_json: '00000000{"id":2}' })
        .where('id', 'in', [2, 3])
        .execute();
    };
    await stale();
    const seq = await store.changes.lastSeq();
    await store.menus.replace(id, [RICH, PLAIN, third]);
    expect(await store.changes.lastSeq()).toBe(seq);
    expect(await kept()).toEqual(current);
    expect(current.every((text) => text?.startsWith(FIELDS_JSON_VERSION))).toBe(true);

    await stale();
    await store.menus.upsertItems(id, [PLAIN]);
    expect(await store.changes.lastSeq()).toBe(seq);
    expect((await kept())[1]).toBe(current[1]);

    await stale();
    const head = await store.menuChanges.head();
    await store.menus.replace(id, [{ ...RICH, name: 'Renamed' }, PLAIN]);
    const { changes } = await store.menuChanges.page(id, head, 10);
    expect(changes.map((change) => [change.itemId, change.type])).toEqual([[1, 'item.upserted']]);
    expect((await store.menus.read(id)).map((entry) => entry.name)).toEqual(['Renamed', PLAIN.name]);
  });
});
