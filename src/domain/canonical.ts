import type { MenuItem } from './item.js';
import {
  type CanonicalItem,
  type Field,
  fieldsOf,
  ITEM_FIELDS,
  type ItemFieldName,
  modelKey,
  PRICE_FIELDS,
  type PriceFieldName,
} from './item-schema.js';
import { fromCents } from './money.js';

/** The canonical item on the wire (exports, imports): every field, snake_case, prices as numbers. */
export type CanonicalRecord = CanonicalItem;

/** The canonical record's item fields besides `prices`, in the order an export writes them. */
export const CANONICAL_ITEM_FIELDS = fieldsOf(ITEM_FIELDS)
  .filter(([, spec]) => spec.kind !== 'entries')
  .map(([name]) => name) as Exclude<ItemFieldName, 'prices'>[];

/** The fields of a canonical price entry. */
export const CANONICAL_PRICE_FIELDS = fieldsOf(PRICE_FIELDS).map(([name]) => name) as PriceFieldName[];

/** One record in the canonical spelling from the model's: names in snake_case, money from cents. */
function canonicalFields(model: Record<string, unknown>, fields: Readonly<Record<string, Field>>) {
  const record: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const value = model[modelKey(name, spec)];
    record[name] =
      spec.kind === 'money'
        ? fromCents(value as number)
        : spec.kind === 'entries'
          ? (value as Record<string, unknown>[]).map((entry) => canonicalFields(entry, PRICE_FIELDS))
          : value;
  }
  return record;
}

export function toCanonicalRecord(item: MenuItem): CanonicalRecord {
  return canonicalFields(item, ITEM_FIELDS) as CanonicalRecord;
}
