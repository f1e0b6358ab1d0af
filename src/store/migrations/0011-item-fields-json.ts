import type { Kysely } from 'kysely';

/**
 * Each item keeps its canonical JSON without its price entries (items.fields_json), so that the live
 * feed of a stock change writes only the item's price entries anew (store/item-folds.ts, foldKeptJson). No
 * backfill: an item without it (or with one written for another version of the field list) has its
 * feed JSON built from its row, as before, until it is next written.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('items').addColumn('fields_json', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('items').dropColumn('fields_json').execute();
}
