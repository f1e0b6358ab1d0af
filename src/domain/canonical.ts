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

/** One record in the canonical spelling from the model's: names in snake_case, money from cents. */
function canonicalFields(model: Record<string, unknown>, fields: readonly NamedField[]) {
  const record: Record<string, unknown> = {};
  for (const { name, kind, key } of fields) {
    const value = model[key];
    record[name] =
      kind === 'money'
        ? fromCents(value as number)
        : kind === 'entries'
          ? (value as Record<string, unknown>[]).map((entry) => canonicalFields(entry, PRICE_FIELD_LIST))
          : value;
  }
  return record;
}

export function toCanonicalRecord(item: MenuItem): CanonicalRecord {
  return canonicalFields(item, ITEM_FIELD_LIST) as CanonicalRecord;
}

/** The model of a canonical record known to be valid (such as the documented example): money in cents. */
export function fromCanonicalRecord(record: CanonicalRecord): MenuItem {
  const modelFields = (values: Record<string, unknown>, fields: readonly NamedField[]) => {
    const model: Record<string, unknown> = {};
    for (const { name, kind, key } of fields) {
      const value = values[name];
      model[key] =
        kind === 'money'
          ? toCents(value as number)
          : kind === 'entries'
            ? (value as Record<string, unknown>[]).map((entry) => modelFields(entry, PRICE_FIELD_LIST))
            : value;
    }
    return model;
  };
  return modelFields(record, ITEM_FIELD_LIST) as MenuItem;
}
