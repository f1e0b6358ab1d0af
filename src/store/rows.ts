import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import { canonicalValue, toCanonicalRecord } from '../domain/canonical.js';
import type { MenuItem, PriceEntry } from '../domain/item.js';
import {
  type ColumnsOf,
  type Field,
  ITEM_FIELD_LIST,
  type ITEM_FIELDS,
  type NamedField,
  PRICE_FIELD_LIST,
  type PRICE_FIELDS,
} from '../domain/item-schema.js';
import { entryUnchanged, type StoredEntry } from '../domain/menu-writes.js';
import { STORE_INFO_FIELDS, type StoreInfo, type WeeklyHours } from '../domain/store-info.js';
import type { Database, ItemColumns, PriceColumns } from './schema.js';
import type { AdminKey, AuditEntry, Credential, Dispensary } from './store.js';

/** Mapping between table rows and the model. Numbers go through Number() because drivers differ on bigint. */

export const nullableNumber = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

export function toDispensary(row: {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
}): Dispensary {
  return { id: Number(row.id), name: row.name, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function toCredential(row: Selectable<Database['credentials']>): Credential {
  return {
    id: Number(row.id),
    username: row.username,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    dispensaryIds: row.dispensary_ids === null ? null : (JSON.parse(row.dispensary_ids) as number[]),
  };
}

export function toAdminKey(row: {
  id: number;
  name: string;
  scope: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}): AdminKey {
  return {
    id: Number(row.id),
    name: row.name,
    scope: row.scope,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export function toAuditEntry(row: Selectable<Database['audit_log']>): AuditEntry {
  return {
    id: Number(row.id),
    at: row.at,
    actor: row.actor,
    dispensaryId: row.dispensary_id === null ? null : Number(row.dispensary_id),
    action: row.action,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  };
}

/** The store fields' columns are their wire names (STORE_INFO_FIELDS), then the time of the last change. */
type StoreFieldColumn = keyof typeof STORE_INFO_FIELDS;
export const STORE_INFO_COLUMNS: readonly (StoreFieldColumn | 'updated_at')[] = [
  ...(Object.keys(STORE_INFO_FIELDS) as StoreFieldColumn[]),
  'updated_at',
];

type StoreInfoRow = Pick<Database['dispensaries'], StoreFieldColumn | 'updated_at'>;

export function toStoreInfo(row: StoreInfoRow): StoreInfo {
  const info: Record<string, unknown> = {};
  for (const [column, key] of Object.entries(STORE_INFO_FIELDS)) info[key] = row[column as StoreFieldColumn];
  info.hours = row.hours === null ? null : (JSON.parse(row.hours) as WeeklyHours);
  info.updatedAt = row.updated_at;
  return info as unknown as StoreInfo;
}

/** Column values for the store fields a patch sets. */
export function storeInfoColumns(patch: Partial<StoreInfo>): Partial<StoreInfoRow> {
  const columns: Record<string, unknown> = {};
  for (const [column, key] of Object.entries(STORE_INFO_FIELDS)) {
    const value = patch[key];
    if (value !== undefined)
      columns[column] = column === 'hours' && value !== null ? JSON.stringify(value) : value;
  }
  return columns as Partial<StoreInfoRow>;
}

/** A record's column values: lists as JSON text, flags as 0/1, everything else as it is. */
function columnValues(model: object, fields: readonly NamedField[]): Record<string, unknown> {
  const values = model as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const { kind, key, column } of fields) {
    if (kind === 'entries') continue;
    const value = values[key];
    row[column] = kind === 'list' ? JSON.stringify(value) : kind === 'flag' ? (value ? 1 : 0) : value;
  }
  return row;
}

export function itemRow(dispensaryId: number, item: MenuItem, at: string): Database['items'] {
  return {
    dispensary_id: dispensaryId,
    ...(columnValues(item, ITEM_FIELD_LIST) as ItemColumns),
    updated_at: at,
    fields_json: fieldsJsonOf(item),
  };
}

/** A price entry's identity within a dispensary: stock updates and change times follow it. */
export const priceKey = (itemId: number, unit: string, amount: number) => `${itemId}|${unit}|${amount}`;

/** A stored price entry, as a write of its item compares it (see entryUnchanged). */
export interface PreviousPrice extends StoredEntry {
  updatedAt: string;
}

/** Price rows for items being written; an unchanged entry (see entryUnchanged) keeps its change time. */
export function priceRows(
  dispensaryId: number,
  item: MenuItem,
  at: string,
  previous: Map<string, PreviousPrice>,
): Database['price_entries'][] {
  return item.prices.map((price, position) => {
    const before = previous.get(priceKey(item.id, price.unit, price.amount));
    const unchanged = entryUnchanged(before, price, item.active);
    return {
      dispensary_id: dispensaryId,
      item_id: item.id,
      position,
      ...(columnValues(price, PRICE_FIELD_LIST) as PriceColumns),
      updated_at: unchanged ? before.updatedAt : at,
    };
  });
}

/** The columns of an item's fields, in the order the fields are declared. */
const columnsOf = <F extends Readonly<Record<string, Field>>>(fields: readonly NamedField[]) =>
  fields.filter((field) => field.kind !== 'entries').map((field) => field.column) as (keyof ColumnsOf<F> &
    string)[];

export const MENU_ITEM_COLUMNS = columnsOf<typeof ITEM_FIELDS>(ITEM_FIELD_LIST);

export const MENU_PRICE_COLUMNS = [
  'item_id',
  ...columnsOf<typeof PRICE_FIELDS>(PRICE_FIELD_LIST),
  'updated_at',
] as const;

/** A column's value as the model holds it; drivers differ on bigint and on 0/1, hence Number(). */
function modelValue(spec: Field, value: unknown): unknown {
  switch (spec.kind) {
    case 'id':
    case 'measure':
    case 'money':
      return Number(value);
    case 'number':
      return nullableNumber(value as number | string | null);
    case 'list':
      return JSON.parse(value as string) as string[];
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

/**
 * Folds a menu's items (ordered by id) and its price entries (ordered by item id, then position), rows
 * as arrays of MENU_ITEM_COLUMNS and MENU_PRICE_COLUMNS values, in one pass over both: each item takes
 * the entries that follow, up to the next item's, and `build` makes what the caller keeps of them.
 */
function fold<T>(
  items: readonly unknown[][],
  prices: readonly unknown[][],
  build: (item: readonly unknown[], entries: readonly (readonly unknown[])[]) => T,
): T[] {
  let next = 0;
  return items.map((row) => {
    // The id is the first column of every item read (MENU_ITEM_COLUMNS, KEPT_JSON_COLUMNS).
    const id = Number(row[0]);
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
  return fold(items, prices, (row, entries) => ({
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

// The feed's kept item JSON (below) puts the price entries after the item's other fields.
if (
  ITEM_FIELD_LIST.at(-1)?.kind !== 'entries' ||
  ITEM_FIELD_LIST.filter((field) => field.kind === 'entries').length !== 1
) {
  throw new Error(
    "store/rows.ts: the price entries must be the item's last field (fieldsJsonOf, foldKeptJson)",
  );
}
if (MENU_ITEM_COLUMNS[0] !== 'id')
  throw new Error('store/rows.ts: fold() takes the id from the first column');

const ENTRIES = ITEM_FIELD_LIST.at(-1)!;

/**
 * The version of the field list an item's kept JSON was written for: a digest of the item's field
 * names and kinds. A kept JSON of another version (a field added since) is not used: its item's feed
 * JSON is built from the row, as for an item written before fields_json existed.
 */
const FIELDS_JSON_VERSION = createHash('sha256')
  .update(JSON.stringify(ITEM_FIELD_LIST.map((field) => [field.name, field.kind])))
  .digest('hex')
  .slice(0, 8);

/**
 * What an item keeps of its canonical JSON (items.fields_json): the version, then the JSON of its
 * canonical record without its price entries, so `{"id":1,…,"active":true}`.
 */
export function fieldsJsonOf(item: MenuItem): string {
  return FIELDS_JSON_VERSION + JSON.stringify({ ...toCanonicalRecord(item), [ENTRIES.name]: undefined });
}

/** The columns of an item read for the live feed's kept JSON (foldKeptJson). */
export const KEPT_JSON_COLUMNS = ['id', 'active', 'fields_json'] as const;
const KEPT = columnIndexes(KEPT_JSON_COLUMNS);

/** The text between an item's kept JSON, without its closing brace, and its price entries' JSON. */
const ENTRIES_KEY = `,${JSON.stringify(ENTRIES.name)}:`;

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
  fold(items, prices, (row, entries) => {
    const id = Number(row[KEPT.id]);
    const fields = row[KEPT.fields_json];
    if (typeof fields !== 'string' || !fields.startsWith(FIELDS_JSON_VERSION)) {
      stale.push(id);
      return;
    }
    const json =
      fields.slice(FIELDS_JSON_VERSION.length, -1) +
      ENTRIES_KEY +
      JSON.stringify(entries.map((price) => readCanonicalPrice(price))) +
      '}';
    kept.push({ id, active: modelValue(ACTIVE, row[KEPT.active]) as boolean, json });
  });
  return { kept, stale };
}
