import { Type } from 'typebox';
import { type MenuItem, UNITS } from '../../domain/item.js';
import { Nullable } from '../../domain/nullable.js';
import { ServiceError } from '../../services/errors.js';
import { INVENTORY_EXAMPLE } from '../examples.js';

export const InventoryEntrySchema = Type.Object(
  {
    item_id: Type.Integer(),
    unit: Type.String({ enum: [...UNITS] }),
    amount: Type.Number(),
    stock: Nullable(
      Type.Number({ description: 'null when the dispensary does not track stock of this entry' }),
    ),
    in_stock: Type.Boolean({ description: 'stock > 0, or true when stock is not tracked' }),
    updated_at: Type.String({
      format: 'date-time',
      description: 'When this entry’s price or stock last changed',
    }),
  },
  { additionalProperties: false, title: 'InventoryEntry' },
);

export const InventorySchema = Type.Array(InventoryEntrySchema, { examples: [INVENTORY_EXAMPLE] });

export const SinceSchema = Type.String({
  maxLength: 64,
  description: 'RFC 3339 time: only entries changed after it are returned.',
  examples: ['2026-11-25T12:00:00Z'],
});

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ]([01]\d|2[0-3]):\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Date.parse rolls days that do not exist over (February 30 becomes March 2): refuse them instead. */
function isCalendarDay(match: RegExpExecArray): boolean {
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Parses `since` to the ISO form the store compares with, or explains what is expected. */
export function parseSince(since: string | undefined): string | undefined {
  if (since === undefined) return undefined;
  const match = RFC3339.exec(since);
  const time = match && isCalendarDay(match) ? Date.parse(since) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new ServiceError(
      'invalid_request',
      `since must be an RFC 3339 time such as 2026-11-25T12:00:00Z, not "${since}".`,
      [{ field: 'since', message: 'must be an RFC 3339 time' }],
    );
  }
  return new Date(time).toISOString();
}

/** One entry per price entry of every active item, optionally only those changed after `since`. */
export function inventoryEntries(items: readonly MenuItem[], since: string | undefined) {
  const entries = [];
  for (const item of items) {
    if (!item.active) continue;
    for (const price of item.prices) {
      const updatedAt = price.updatedAt ?? '';
      if (since !== undefined && !(updatedAt > since)) continue;
      entries.push({
        item_id: item.id,
        unit: price.unit,
        amount: price.amount,
        stock: price.stock,
        in_stock: price.stock === null || price.stock > 0,
        updated_at: updatedAt,
      });
    }
  }
  return entries;
}
