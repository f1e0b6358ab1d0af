import type { Kysely } from 'kysely';
import { notNullDefault } from './columns.js';

/**
 * The rich item's fields (src/domain/item-schema.ts, docs/rich-item.md): lists and structured values
 * as JSON text, like flavors. Existing rows take the value a missing field has on input, so that
 * they read back as the same items; their kept feed JSON (fields_json) is of the previous field list
 * and is rebuilt from the row until the item is next written (see 0011).
 */
const ITEM_COLUMNS = [
  ['tags', 'text', '[]'],
  ['staff_pick', 'integer', 0],
  ['external_id', 'text', ''],
  ['strain', 'text', 'null'],
  ['cannabinoids', 'text', '[]'],
  ['terpenes', 'text', '[]'],
  ['batch', 'text', 'null'],
  ['serving', 'text', 'null'],
  ['images', 'text', '[]'],
] as const;

const PRICE_COLUMNS = [
  ['label', 'text', ''],
  ['sku', 'text', ''],
  ['barcode', 'text', ''],
] as const;

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite adds one at a time.
  for (const [name, type, fallback] of ITEM_COLUMNS) {
    await db.schema.alterTable('items').addColumn(name, type, notNullDefault(fallback)).execute();
  }
  for (const [name, type, fallback] of PRICE_COLUMNS) {
    await db.schema.alterTable('price_entries').addColumn(name, type, notNullDefault(fallback)).execute();
  }
  await db.schema.alterTable('price_entries').addColumn('med_price_cents', 'bigint').execute();
  // Partial sync, delete and stock updates find an item by the point of sale's id.
  await db.schema
    .createIndex('items_external_id')
    .on('items')
    .columns(['dispensary_id', 'external_id'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('items_external_id').execute();
  await db.schema.alterTable('price_entries').dropColumn('med_price_cents').execute();
  for (const [name] of [...PRICE_COLUMNS].reverse())
    await db.schema.alterTable('price_entries').dropColumn(name).execute();
  for (const [name] of [...ITEM_COLUMNS].reverse())
    await db.schema.alterTable('items').dropColumn(name).execute();
}
