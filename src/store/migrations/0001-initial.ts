import type { Kysely } from 'kysely';
import { autoIncrementKey } from './portable.js';

// Migrations use only the portable schema builder so that every dialect runs the same file.
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  const id = autoIncrementKey(db);
  await db.schema
    .createTable('dispensaries')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('token_digest', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('credentials')
    .addColumn('id', 'integer', id)
    .addColumn('username', 'text', (col) => col.notNull().unique())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('items')
    .addColumn('dispensary_id', 'integer', (col) =>
      col.notNull().references('dispensaries.id').onDelete('cascade'),
    )
    .addColumn('id', 'integer', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('brand', 'text', (col) => col.notNull())
    .addColumn('product_type', 'text', (col) => col.notNull())
    .addColumn('product_subtype', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('image', 'text')
    .addColumn('cbd', 'double precision')
    .addColumn('cbn', 'double precision')
    .addColumn('thc', 'double precision')
    .addColumn('total_thc', 'double precision')
    .addColumn('total_cbd', 'double precision')
    .addColumn('flavors', 'text', (col) => col.notNull())
    .addColumn('effects', 'text', (col) => col.notNull())
    .addColumn('conditions', 'text', (col) => col.notNull())
    .addColumn('active', 'integer', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('items_pk', ['dispensary_id', 'id'])
    .execute();

  await db.schema
    .createTable('price_entries')
    .addColumn('dispensary_id', 'integer', (col) => col.notNull())
    .addColumn('item_id', 'integer', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('unit', 'text', (col) => col.notNull())
    .addColumn('amount', 'double precision', (col) => col.notNull())
    .addColumn('price_cents', 'bigint', (col) => col.notNull())
    .addColumn('stock', 'double precision')
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('price_entries_pk', ['dispensary_id', 'item_id', 'position'])
    .addForeignKeyConstraint(
      'price_entries_item_fk',
      ['dispensary_id', 'item_id'],
      'items',
      ['dispensary_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();

  await db.schema
    .createTable('changes')
    .addColumn('seq', 'integer', id)
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('dispensary_id', 'integer')
    .addColumn('subject', 'text')
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('changes_at').on('changes').column('at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['changes', 'price_entries', 'items', 'credentials', 'dispensaries']) {
    await db.schema.dropTable(table).execute();
  }
}
