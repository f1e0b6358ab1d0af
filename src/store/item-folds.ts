import { canonicalValue, isCanonicalFieldsJson } from '../domain/canonical.js';
import type { Field } from '../domain/field-kinds.js';
import type { MenuItem, PriceEntry } from '../domain/item.js';
import { ITEM_FIELD_LIST, type NamedField, PRICE_FIELD_LIST } from '../domain/item-schema.js';
import type { SpecialTarget, TargetedItem } from '../domain/special-pricing.js';
import {
  ENTRIES_KEY,
  FIELDS_JSON_VERSION,
  MENU_ITEM_COLUMNS,
  MENU_PRICE_COLUMNS,
  type PreviousPrice,
  type StoredMenuItem,
} from './item-rows.js';
import { nullableNumber } from './rows.js';
import type { Database } from './schema.js';

/**
 * A menu's rows, read as arrays of their columns, folded into items: as the model holds them, as the
 * feed's JSON, or as a write of items compares them.
 */

/** A column's value as the model holds it; drivers differ on bigint and on 0/1, hence Number(). */
function modelValue(spec: Field, value: unknown): unknown {
  switch (spec.kind) {
    case 'id':
    case 'measure':
      return Number(value);
    case 'money':
      return value === null ? null : Number(value);
    case 'number':
      return nullableNumber(value as number | string | null);
    case 'list':
    case 'document':
      return JSON.parse(value as string) as unknown;
    case 'flag':
      return Number(value) === 1;
    default:
      return value;
  }
}

/**
 * How to read a record from a row read as an array of `columns`, field by field in the fields' order:
 * each value as the model holds it (modelValue) under the field's model key, or as the canonical
 * record spells it (canonicalValue) under its canonical name. Price entries are given, and take their
 * field's place.
 */
function readerOf(
  fields: readonly NamedField[],
  columns: readonly string[],
  spelling: 'model' | 'canonical',
) {
  const read = fields.map((field) => ({
    field,
    index: columns.indexOf(field.column),
    name: spelling === 'model' ? field.key : field.name,
  }));
  return (row: readonly unknown[], entries?: readonly object[]) => {
    const record: Record<string, unknown> = {};
    for (const { field, index, name } of read) {
      if (field.kind === 'entries') {
        record[name] = entries;
        continue;
      }
      const value = modelValue(field, row[index]);
      record[name] = spelling === 'model' ? value : canonicalValue(field, value);
    }
    return record;
  };
}

/** Each column's position in a row read as an array, from the list the query selects. */
function columnIndexes<const C extends readonly string[]>(columns: C): Readonly<Record<C[number], number>> {
  return Object.fromEntries(columns.map((column, index) => [column, index])) as Record<C[number], number>;
}

const ITEM = columnIndexes(MENU_ITEM_COLUMNS);
const PRICE = columnIndexes(MENU_PRICE_COLUMNS);
const readItem = readerOf(ITEM_FIELD_LIST, MENU_ITEM_COLUMNS, 'model');
const readPrice = readerOf(PRICE_FIELD_LIST, MENU_PRICE_COLUMNS, 'model');
const readCanonicalItem = readerOf(ITEM_FIELD_LIST, MENU_ITEM_COLUMNS, 'canonical');
const readCanonicalPrice = readerOf(PRICE_FIELD_LIST, MENU_PRICE_COLUMNS, 'canonical');
/** The id of an item's row: its first column in every item read (MENU_ITEM_COLUMNS, KEPT_JSON_COLUMNS). */
const rowId = (row: readonly unknown[]) => Number(row[0]);

/**
 * Folds a menu's items (ordered by id) and its price entries (ordered by item id, then position), rows
 * as arrays of MENU_ITEM_COLUMNS and MENU_PRICE_COLUMNS values, in one pass over both: each item takes
 * the entries that follow, up to the next item's, and `build` makes what the caller keeps of them.
 * `idOf` reads an item's id (rowId for rows).
 */
function fold<Item, T>(
  items: readonly Item[],
  prices: readonly unknown[][],
  idOf: (item: Item) => number,
  build: (item: Item, entries: readonly (readonly unknown[])[]) => T,
): T[] {
  let next = 0;
  return items.map((row) => {
    const id = idOf(row);
    const entries: unknown[][] = [];
    // `<=`, not `===`: an entry whose item is not in the list is passed over, as a join would.
    for (; next < prices.length && Number(prices[next]![PRICE.item_id]) <= id; next++) {
      const price = prices[next]!;
      if (Number(price[PRICE.item_id]) === id) entries.push(price);
    }
    return build(row, entries);
  });
}

/** The items of a menu's rows (see fold), as the model holds them. */
export function foldMenu(items: readonly unknown[][], prices: readonly unknown[][]): MenuItem[] {
  return fold(
    items,
    prices,
    rowId,
    (row, entries) =>
      readItem(
        row,
        entries.map((price) => {
          const entry = readPrice(price) as PriceEntry;
          entry.updatedAt = price[PRICE.updated_at] as Database['price_entries']['updated_at'];
          return entry;
        }),
      ) as MenuItem,
  );
}

/** An item read back for the live feed: its id, whether it is active, and its canonical JSON. */
export interface ItemJson {
  id: number;
  active: boolean;
  /** `JSON.stringify(toCanonicalRecord(item))`, byte for byte. */
  json: string;
  /**
   * When `json` is the item's kept JSON (items.fields_json, as read in this write) with its price
   * entries put after it (foldKeptJson): the JSON of those entries, so that a database holding the
   * kept JSON can build `json` itself rather than be sent it (see FeedEntry.keptEntries).
   */
  entries?: string;
}

const ACTIVE = ITEM_FIELD_LIST.find((field) => field.column === 'active')!;

/**
 * The items of a menu's rows (see fold) as their canonical JSON, each record read straight from its
 * rows: a stock batch records thousands of items in the live feed, and building each item's model
 * and then its canonical record from it took a third of the batch's time (bench/PROFILE.md, round
 * ten). Equal to `JSON.stringify(toCanonicalRecord(item))` of foldMenu's items (a property test
 * holds them equal).
 */
export function foldCanonicalJson(items: readonly unknown[][], prices: readonly unknown[][]): ItemJson[] {
  return fold(items, prices, rowId, (row, entries) => ({
    id: Number(row[ITEM.id]),
    active: modelValue(ACTIVE, row[ITEM.active]) as boolean,
    json: JSON.stringify(
      readCanonicalItem(
        row,
        entries.map((price) => readCanonicalPrice(price)),
      ),
    ),
  }));
}

if (MENU_ITEM_COLUMNS[0] !== 'id')
  throw new Error('store/item-folds.ts: rowId() takes the id from the first column');

/** The columns of an item read for the live feed's kept JSON (foldKeptJson). */
export const KEPT_JSON_COLUMNS = ['id', 'active', 'fields_json'] as const;
const KEPT = columnIndexes(KEPT_JSON_COLUMNS);

/**
 * The items of rows of KEPT_JSON_COLUMNS and their price entries' rows (see fold) as their canonical
 * JSON: the kept JSON of the item's fields with the JSON of its price entries put after them. Only the
 * entries are serialized, not the item's descriptive fields, which a stock change leaves alone: the
 * feed of a 6,680-entry stock batch records 2,900 items. Items whose kept JSON is missing or of
 * another version are `stale`, to be read whole (foldCanonicalJson). Equal to `JSON.stringify(
 * toCanonicalRecord(item))` of foldMenu's items (the same property test holds them equal).
 */
export function foldKeptJson(
  items: readonly unknown[][],
  prices: readonly unknown[][],
): { kept: ItemJson[]; stale: number[] } {
  const kept: ItemJson[] = [];
  const stale: number[] = [];
  fold(items, prices, rowId, (row, entries) => {
    const id = Number(row[KEPT.id]);
    const fields = row[KEPT.fields_json];
    if (!keptJsonIsCurrent(fields)) {
      stale.push(id);
      return;
    }
    const entriesJson = JSON.stringify(entries.map((price) => readCanonicalPrice(price)));
    const json = `${fields.slice(FIELDS_JSON_VERSION.length, -1)}${ENTRIES_KEY}${entriesJson}}`;
    kept.push({ id, active: modelValue(ACTIVE, row[KEPT.active]) as boolean, json, entries: entriesJson });
  });
  return { kept, stale };
}

/** Whether `fields_json` is an item's kept JSON of this version of the field list. */
const keptJsonIsCurrent = (fields: unknown): fields is string =>
  typeof fields === 'string' && fields.startsWith(FIELDS_JSON_VERSION);

/** The price entries' fields, each with its column's place in a row of MENU_PRICE_COLUMNS. */
const PRICE_READ = PRICE_FIELD_LIST.map((field) => ({
  field,
  key: field.key,
  index: (MENU_PRICE_COLUMNS as readonly string[]).indexOf(field.column),
}));

/** Whether the price entries' rows (of MENU_PRICE_COLUMNS) hold `entries`, in order, field by field. */
function sameEntries(rows: readonly (readonly unknown[])[], entries: readonly PriceEntry[]): boolean {
  if (rows.length !== entries.length) return false;
  for (let position = 0; position < rows.length; position++) {
    const row = rows[position]!;
    const entry = entries[position] as unknown as Record<string, unknown>;
    // Every entry field is a scalar (text, number or null): equal as JSON exactly when ===.
    for (const { field, key, index } of PRICE_READ) {
      if (modelValue(field, row[index]) !== entry[key]) return false;
    }
  }
  return true;
}

/**
 * A stored item as a write of items compares it, from its kept JSON and its price entries' rows: an
 * item is unchanged when its price entries are the stored ones and the JSON it would keep is the kept
 * JSON, byte for byte (the canonical record without its entries). So an unchanged sync reads three
 * columns of each item instead of all of them, and compares one string instead of every field.
 */
class KeptItem implements StoredMenuItem {
  constructor(
    readonly active: boolean,
    readonly externalId: string,
    private readonly fieldsJson: string,
    readonly entryRows: readonly (readonly unknown[])[],
  ) {}

  unchanged(item: MenuItem): boolean {
    return (
      sameEntries(this.entryRows, item.prices) &&
      isCanonicalFieldsJson(item, this.fieldsJson, FIELDS_JSON_VERSION.length)
    );
  }

  previousPrices(): PreviousPrice[] {
    return this.entryRows.map((row) => ({
      unit: row[PRICE.unit] as string,
      amount: Number(row[PRICE.amount]),
      priceCents: Number(row[PRICE.price_cents]),
      stock: nullableNumber(row[PRICE.stock] as number | string | null),
      updatedAt: row[PRICE.updated_at] as string,
      active: this.active,
    }));
  }
}

/** The columns of an item a write of items reads to compare it (foldStoredItems): its kept JSON's, and its external_id. */
export const STORED_ITEM_COLUMNS = [...KEPT_JSON_COLUMNS, 'external_id'] as const;
const STORED = columnIndexes(STORED_ITEM_COLUMNS);

/**
 * The items of rows of STORED_ITEM_COLUMNS and their price entries' rows (see fold), as a write of items
 * compares them (KeptItem), by id. Items whose kept JSON is missing or of another version are `stale`,
 * to be read whole and compared field by field.
 */
export function foldStoredItems(
  items: readonly unknown[][],
  prices: readonly unknown[][],
): { kept: Map<number, StoredMenuItem>; stale: number[] } {
  const kept = new Map<number, StoredMenuItem>();
  const stale: number[] = [];
  fold(items, prices, rowId, (row, entries) => {
    const id = Number(row[STORED.id]);
    const fields = row[STORED.fields_json];
    if (keptJsonIsCurrent(fields)) {
      const active = modelValue(ACTIVE, row[STORED.active]) as boolean;
      kept.set(id, new KeptItem(active, row[STORED.external_id] as string, fields, entries));
    } else {
      stale.push(id);
    }
  });
  return { kept, stale };
}

/** The columns of an item read for its pricing under specials (foldPricing). */
export const PRICING_ITEM_COLUMNS = ['id', 'brand', 'product_type', 'tags', 'external_id'] as const;
/** The columns of a price entry read for its item's pricing (foldPricing); the item first, as fold() takes it. */
export const PRICING_PRICE_COLUMNS = ['item_id', 'price_cents', 'med_price_cents'] as const;

/**
 * Items as specials target and price them (TargetedItem): the targets made of rows of
 * PRICING_ITEM_COLUMNS (targetOf, ordered by id) with their entries' rows of PRICING_PRICE_COLUMNS (by
 * item, then position): a boundary asks which items it reprices, and parsing every rich column of the
 * whole menu for that took most of its time (bench/PROFILE.md, round fourteen). Only the entries'
 * prices are read; the rest of each entry is no part of its pricing.
 */
export function foldPricing(targets: readonly SpecialTarget[], prices: readonly unknown[][]): TargetedItem[] {
  return fold(targets, prices, targetId, (target, entries) => ({
    ...target,
    prices: entries.map((price) => ({
      priceCents: Number(price[1]),
      medPriceCents: nullableNumber(price[2] as number | string | null),
    })),
  }));
}

const targetId = (target: SpecialTarget) => target.id;

/** An item as specials target it, from a row of PRICING_ITEM_COLUMNS (its prices are not in the row). */
export function targetOf(row: readonly unknown[]): SpecialTarget {
  return {
    id: Number(row[0]),
    brand: row[1] as string,
    productType: row[2] as MenuItem['productType'],
    tags: JSON.parse(row[3] as string) as string[],
    externalId: row[4] as string,
  };
}
