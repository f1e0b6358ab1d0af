import { createHash } from 'node:crypto';
import { canonicalEntries, canonicalValue } from '../domain/canonical.js';
import type { Field } from '../domain/field-kinds.js';
import type { MenuItem } from '../domain/item.js';
import {
  type ColumnsOf,
  ITEM_FIELD_LIST,
  type ITEM_FIELDS,
  type NamedField,
  PRICE_FIELD_LIST,
  type PRICE_FIELDS,
} from '../domain/item-schema.js';
import { entryUnchanged, type StoredEntry, type StoredItem } from '../domain/menu-writes.js';
import type { Database, ItemColumns, PriceColumns } from './schema.js';

/** The rows a write of items makes (items and their price entries), and the columns menu reads select. */

/** A record's column values: lists and documents as JSON text, flags as 0/1, everything else as it is. */
function columnValues(model: object, fields: readonly NamedField[]): Record<string, unknown> {
  const values = model as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const { kind, key, column } of fields) {
    if (kind === 'entries') continue;
    const value = values[key];
    row[column] =
      kind === 'list' || kind === 'document'
        ? JSON.stringify(value)
        : kind === 'flag'
          ? value
            ? 1
            : 0
          : value;
  }
  return row;
}

/** An item's column values and the JSON it keeps of its fields (fieldsJsonOf), made together by itemTexts. */
export interface ItemTexts {
  columns: ItemColumns;
  fieldsJson: string;
}

export function itemRow(dispensaryId: number, texts: ItemTexts, at: string): Database['items'] {
  return { dispensary_id: dispensaryId, ...texts.columns, updated_at: at, fields_json: texts.fieldsJson };
}

/** A price entry's identity within a dispensary: stock updates and change times follow it. */
export const priceKey = (itemId: number, unit: string, amount: number) => `${itemId}|${unit}|${amount}`;

/** A stored price entry, as a write of its item finds it (by unit and amount) and compares it (see entryUnchanged). */
export interface PreviousPrice extends StoredEntry {
  unit: string;
  amount: number;
  updatedAt: string;
}

/** A stored item as a write of items compares it (StoredItem), with its price entries as stored. */
export interface StoredMenuItem extends StoredItem {
  /** Its external_id as stored ('' for none): a write that moves it deletes the item and inserts it again. */
  externalId: string;
  /** Its price entries as stored, made when asked: only a write that rewrites the item needs them. */
  previousPrices(): PreviousPrice[];
  /**
   * Its price entries' rows as read (MENU_PRICE_COLUMNS), by position; undefined when the item was read
   * whole (its kept JSON stale), and a write then rewrites every entry.
   */
  readonly entryRows?: readonly (readonly unknown[])[];
}

/**
 * Whether a price row a write makes (see priceRows) holds what a stored row (MENU_PRICE_COLUMNS, as
 * read) holds in every column: then the write leaves the stored row alone. A value read back in
 * another type (a number as text, say) counts as a difference: the row is only written again.
 */
export function samePriceRow(row: Database['price_entries'], stored: readonly unknown[]): boolean {
  const values = row as unknown as Record<string, unknown>;
  for (let index = 0; index < MENU_PRICE_COLUMNS.length; index++) {
    if ((values[MENU_PRICE_COLUMNS[index]!] ?? null) !== (stored[index] ?? null)) return false;
  }
  return true;
}

/**
 * Price rows for an item being written over `stored` (or new); an unchanged entry (see
 * entryUnchanged) keeps its change time.
 */
export function priceRows(
  dispensaryId: number,
  item: MenuItem,
  at: string,
  stored: StoredMenuItem | undefined,
): Database['price_entries'][] {
  const previous = stored?.previousPrices() ?? [];
  return item.prices.map((price, position) => {
    // The last stored entry of this unit and amount, as a map by them would keep.
    const before = previous.findLast((entry) => entry.unit === price.unit && entry.amount === price.amount);
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

// The feed's kept item JSON (below) puts the price entries after the item's other fields.
if (
  ITEM_FIELD_LIST.at(-1)?.kind !== 'entries' ||
  ITEM_FIELD_LIST.filter((field) => field.kind === 'entries').length !== 1
) {
  throw new Error(
    "store/item-rows.ts: the price entries must be the item's last field (fieldsJsonOf, foldKeptJson)",
  );
}

export const ENTRIES = ITEM_FIELD_LIST.at(-1)!;

/**
 * The version of the field list an item's kept JSON was written for: a digest of the item's field
 * names and kinds. A kept JSON of another version (a field added since) is not used: its item's feed
 * JSON is built from the row, as for an item written before fields_json existed, and a write of items
 * compares the item whole and renews its kept JSON when it leaves the item in place (readStoredItems).
 */
export const FIELDS_JSON_VERSION = createHash('sha256')
  .update(JSON.stringify(ITEM_FIELD_LIST.map((field) => [field.name, field.kind])))
  .digest('hex')
  .slice(0, 8);

/** The item's fields besides its entries, each with its canonical name as JSON text (`"id":`). */
const ITEM_COLUMN_FIELDS = ITEM_FIELD_LIST.filter((field) => field.kind !== 'entries').map((field) => ({
  field,
  serialized: field.kind === 'list' || field.kind === 'document',
  name: `${JSON.stringify(field.name)}:`,
}));

/**
 * An item's column values (lists and documents as JSON text, flags as 0/1) and what it keeps of its
 * canonical JSON (items.fields_json): the version, then the JSON of its canonical record without its
 * price entries, so `{"id":1,…,"active":true}`, byte for byte `JSON.stringify`'s. Each list and
 * document is serialized once, for its column and for the kept JSON: a sync that changes every rich
 * item serialized its lab results three times (columns, kept JSON, feed JSON; bench/PROFILE.md, round
 * fourteen). The live feed builds an item's JSON on the kept JSON (feedJsonOf, foldKeptJson), and a
 * write of items tells an unchanged item by it (KeptItem).
 */
export function itemTexts(item: MenuItem): ItemTexts {
  const values = item as unknown as Record<string, unknown>;
  const columns: Record<string, unknown> = {};
  // The kept JSON's pieces, joined once: built by `+=`, it was a tree of some 70 string pieces per
  // item, copied by each young-generation collection while the write held it and flattened again
  // when its statement bound it (bench/PROFILE.md, round twenty-eight).
  const parts: string[] = [FIELDS_JSON_VERSION];
  for (const { field, serialized, name } of ITEM_COLUMN_FIELDS) {
    const value = values[field.key];
    let text: string | undefined;
    if (serialized) {
      text = JSON.stringify(value);
      columns[field.column] = text;
    } else {
      columns[field.column] = field.kind === 'flag' ? (value ? 1 : 0) : value;
      text = JSON.stringify(canonicalValue(field, value));
    }
    // JSON.stringify leaves out a property whose value is undefined.
    if (text === undefined) continue;
    parts.push(parts.length === 1 ? '{' : ',', name, text);
  }
  parts.push(parts.length === 1 ? '{}' : '}');
  return { columns: columns as ItemColumns, fieldsJson: parts.join('') };
}

/** What an item keeps of its canonical JSON (see itemTexts). */
export const fieldsJsonOf = (item: MenuItem): string => itemTexts(item).fieldsJson;

/** The text between an item's kept JSON, without its closing brace, and its price entries' JSON. */
export const ENTRIES_KEY = `,${JSON.stringify(ENTRIES.name)}:`;

/**
 * The item's canonical JSON (`JSON.stringify(toCanonicalRecord(item))`, byte for byte), as the live
 * feed records it: its kept JSON (`fieldsJson`, see itemTexts) with its price entries' JSON put after
 * its other fields, so that only the entries are serialized again.
 */
export function feedJsonOf(item: MenuItem, fieldsJson: string): string {
  // An item always has fields before its entries (its id, at least): a comma goes between them.
  return `${fieldsJson.slice(FIELDS_JSON_VERSION.length, -1)}${ENTRIES_KEY}${JSON.stringify(canonicalEntries(item))}}`;
}
