import { type Kysely, sql } from 'kysely';

/**
 * The store's menu_types column, and:
 * an external_id (the point of sale's id) names one item of its dispensary: a unique index, partial
 * because "" means none, makes the database refuse a second one whatever the writers checked before.
 * It replaces 0013's plain index on the same columns, which it also serves.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  // The menus a store sells from (rec, med), as JSON text; null: not said.
  await db.schema.alterTable('dispensaries').addColumn('menu_types', 'text').execute();
  await db.schema.dropIndex('items_external_id').execute();
  await db.schema
    .createIndex('items_external_id_unique')
    .on('items')
    .columns(['dispensary_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), '<>', '')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dispensaries').dropColumn('menu_types').execute();
  await db.schema.dropIndex('items_external_id_unique').execute();
  await db.schema
    .createIndex('items_external_id')
    .on('items')
    .columns(['dispensary_id', 'external_id'])
    .execute();
}
