import type { Kysely } from 'kysely';
import {
  columns,
  createIndex,
  dispensaryReference,
  notNull,
  notNullUnique,
  withTimestamps,
} from './columns.js';
import { autoIncrementKey } from './portable.js';

// Migrations use only the portable schema builder so that every dialect runs the same file.
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  const id = autoIncrementKey(db);
  await db.schema
    .createTable('dispensaries')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'text', notNull)
    .addColumn('token_digest', 'text', notNullUnique)
    .$call(withTimestamps)
    .execute();

  await db.schema
    .createTable('credentials')
    .addColumn('id', 'integer', id)
    .addColumn('username', 'text', notNullUnique)
    .addColumn('password_hash', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('items')
    .$call(dispensaryReference)
    .addColumn('id', 'integer', notNull)
    .$call(columns('text', ['name', 'brand', 'product_type', 'product_subtype', 'description'], notNull))
    .addColumn('image', 'text')
    .$call(columns('double precision', ['cbd', 'cbn', 'thc', 'total_thc', 'total_cbd']))
    // JSON arrays of strings.
    .$call(columns('text', ['flavors', 'effects', 'conditions'], notNull))
    .addColumn('active', 'integer', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addPrimaryKeyConstraint('items_pk', ['dispensary_id', 'id'])
    .execute();

  await db.schema
    .createTable('price_entries')
    .$call(columns('integer', ['dispensary_id', 'item_id', 'position'], notNull))
    .addColumn('unit', 'text', notNull)
    .addColumn('amount', 'double precision', notNull)
    .addColumn('price_cents', 'bigint', notNull)
    .addColumn('stock', 'double precision')
    .addColumn('updated_at', 'text', notNull)
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
    .addColumn('kind', 'text', notNull)
    .addColumn('dispensary_id', 'integer')
    .addColumn('subject', 'text')
    .addColumn('at', 'text', notNull)
    .execute();
  await createIndex(db, 'changes_at', 'changes', ['at']);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['changes', 'price_entries', 'items', 'credentials', 'dispensaries']) {
    await db.schema.dropTable(table).execute();
  }
}
