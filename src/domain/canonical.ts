import type { Field } from './field-kinds.js';
import type { MenuItem } from './item.js';
import {
  type CanonicalItem,
  ITEM_FIELD_LIST,
  type ItemFieldName,
  type NamedField,
  PRICE_FIELD_LIST,
  type PriceFieldName,
} from './item-schema.js';
import { fromCents, toCents } from './money.js';

/** The canonical item on the wire (exports, imports): every field, snake_case, prices as numbers. */
export type CanonicalRecord = CanonicalItem;

/** The canonical record's item fields besides `prices`, in the order an export writes them. */
export const CANONICAL_ITEM_FIELDS = ITEM_FIELD_LIST.filter((field) => field.kind !== 'entries').map(
  (field) => field.name,
) as Exclude<ItemFieldName, 'prices'>[];

/** The fields of a canonical price entry. */
export const CANONICAL_PRICE_FIELDS = PRICE_FIELD_LIST.map((field) => field.name) as PriceFieldName[];

/**
 * Maps a record between the model's spelling (camelCase keys, money in cents) and the canonical one
 * (snake_case names, money as numbers), price entries included: both directions walk the same fields.
 */
function mapFields(
  values: Record<string, unknown>,
  fields: readonly NamedField[],
  direction: 'toCanonical' | 'toModel',
): Record<string, unknown> {
  const [from, to, scalar] =
    direction === 'toCanonical'
      ? (['key', 'name', canonicalValue] as const)
      : (['name', 'key', modelValueOf] as const);
  const record: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field[from]];
    record[field[to]] =
      field.kind === 'entries'
        ? (value as Record<string, unknown>[]).map((entry) => mapFields(entry, PRICE_FIELD_LIST, direction))
        : scalar(field, value);
  }
  return record;
}

/** A field's value (not price entries) as the canonical record spells the model's: money in units, not cents. */
export function canonicalValue(field: Field, value: unknown): unknown {
  return field.kind === 'money' && value !== null ? fromCents(value as number) : value;
}

const modelValueOf = (field: Field, value: unknown): unknown =>
  field.kind === 'money' && value !== null ? toCents(value as number) : value;

/**
 * Whether two items have the same canonical record (`JSON.stringify(toCanonicalRecord(...))` equal),
 * by one walk of the same fields, without building either record: a sync of thousands of unchanged
 * items compares them all.
 */
export function sameCanonical(a: MenuItem, b: MenuItem): boolean {
  return sameFields(a, b, ITEM_FIELD_LIST);
}

function sameFields(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  fields: readonly NamedField[],
): boolean {
  for (const field of fields) {
    const left = a[field.key];
    const right = b[field.key];
    if (field.kind === 'entries') {
      const entries = left as Record<string, unknown>[];
      const others = right as Record<string, unknown>[];
      if (entries.length !== others.length) return false;
      for (let index = 0; index < entries.length; index++) {
        if (!sameFields(entries[index]!, others[index]!, PRICE_FIELD_LIST)) return false;
      }
    } else if (field.kind === 'document' ? !sameDocument(left, right) : !sameValue(left, right)) {
      return false;
    }
  }
  return true;
}

/**
 * Equal as JSON, for a document field's values. An item that has none holds null or [] on both sides:
 * those are told apart without serializing, so that a menu using no document field compares at the
 * cost it did before they existed; documents that hold something are compared as their JSON text.
 */
function sameDocument(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) && Array.isArray(right) && (left.length === 0 || right.length === 0)) {
    return left.length === right.length;
  }
  return JSON.stringify(left) === JSON.stringify(right);
}

/** Equal as JSON: primitives by value (undefined, which JSON leaves out, only equals undefined), lists item by item. */
function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
  return left.every((value, index) => sameValue(value, right[index]));
}

/** The item's fields besides its price entries, each with its canonical name as JSON text (`"id":`). */
const FIELDS_JSON = ITEM_FIELD_LIST.filter((field) => field.kind !== 'entries').map((field) => ({
  field,
  key: field.key,
  name: `${JSON.stringify(field.name)}:`,
}));

/**
 * Whether `text`, from `from` to its end, is the JSON of the item's canonical record without its price
 * entries, byte for byte as `JSON.stringify` writes it. Each value is compared where it stands in
 * `text`, without writing the item's JSON: an unchanged sync compares every item it is sent with the
 * JSON the store keeps of it (store/item-folds.ts, KeptItem), and building thousands of strings to
 * throw away made most of its garbage.
 */
export function isCanonicalFieldsJson(item: MenuItem, text: string, from: number): boolean {
  const values = item as unknown as Record<string, unknown>;
  let at = from;
  let first = true;
  for (const { field, key, name } of FIELDS_JSON) {
    const value = canonicalValue(field, values[key]);
    // JSON.stringify leaves out a property whose value is undefined.
    if (value === undefined) continue;
    if (text.charCodeAt(at) !== (first ? OPEN_OBJECT : COMMA) || !text.startsWith(name, at + 1)) return false;
    first = false;
    at = jsonAt(text, at + 1 + name.length, value);
    if (at < 0) return false;
  }
  return first
    ? text.length === from + 2 && text.startsWith('{}', from)
    : at === text.length - 1 && text.charCodeAt(at) === CLOSE_OBJECT;
}

const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_LIST, CLOSE_LIST, COMMA, QUOTE] = [...'{}[],"'].map((char) =>
  char.charCodeAt(0),
);

/**
 * Characters JSON.stringify escapes (quote, backslash, controls and lone surrogates; and a few controls
 * it does not): a string holding one is compared as JSON.stringify writes it.
 */
const ESCAPED = /["\\\p{Cc}\p{Cs}]/u;

/** Where the JSON of `value` (a field's value, never undefined) ends when `text` holds it at `at`; -1 when not. */
function jsonAt(text: string, at: number, value: unknown): number {
  if (typeof value === 'string' && !ESCAPED.test(value)) {
    const end = at + 1 + value.length;
    return text.charCodeAt(at) === QUOTE && text.startsWith(value, at + 1) && text.charCodeAt(end) === QUOTE
      ? end + 1
      : -1;
  }
  if (Array.isArray(value)) {
    if (text.charCodeAt(at) !== OPEN_LIST) return -1;
    let next = at + 1;
    for (let index = 0; index < value.length; index++) {
      if (index > 0 && text.charCodeAt(next++) !== COMMA) return -1;
      // JSON.stringify writes an undefined list entry as null.
      next = jsonAt(text, next, value[index] ?? null);
      if (next < 0) return -1;
    }
    return text.charCodeAt(next) === CLOSE_LIST ? next + 1 : -1;
  }
  // null, true, false and numbers without allocating where V8 keeps their text; documents as written.
  const json = value === null ? 'null' : (JSON.stringify(value) as string);
  return text.startsWith(json, at) ? at + json.length : -1;
}

export function toCanonicalRecord(item: MenuItem): CanonicalRecord {
  return mapFields(item, ITEM_FIELD_LIST, 'toCanonical') as CanonicalRecord;
}

/** The item's price entries as its canonical record spells them (its `prices`). */
export function canonicalEntries(item: MenuItem): Record<string, unknown>[] {
  return item.prices.map((entry) =>
    mapFields(entry as unknown as Record<string, unknown>, PRICE_FIELD_LIST, 'toCanonical'),
  );
}

/** The model of a canonical record known to be valid (such as the documented example): money in cents. */
export function fromCanonicalRecord(record: CanonicalRecord): MenuItem {
  return mapFields(record, ITEM_FIELD_LIST, 'toModel') as MenuItem;
}
