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
  const [from, to, money] =
    direction === 'toCanonical' ? (['key', 'name', fromCents] as const) : (['name', 'key', toCents] as const);
  const record: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field[from]];
    record[field[to]] =
      field.kind === 'money'
        ? money(value as number)
        : field.kind === 'entries'
          ? (value as Record<string, unknown>[]).map((entry) => mapFields(entry, PRICE_FIELD_LIST, direction))
          : value;
  }
  return record;
}

export function toCanonicalRecord(item: MenuItem): CanonicalRecord {
  return mapFields(item, ITEM_FIELD_LIST, 'toCanonical') as CanonicalRecord;
}

/** The model of a canonical record known to be valid (such as the documented example): money in cents. */
export function fromCanonicalRecord(record: CanonicalRecord): MenuItem {
  return mapFields(record, ITEM_FIELD_LIST, 'toModel') as MenuItem;
}
