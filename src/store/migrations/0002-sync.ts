import type { Kysely } from 'kysely';
import { columns, createIndex, notNull, notNullDefault, notNullUnique } from './columns.js';
import { autoIncrementKey } from './portable.js';

const STORE_TEXT_COLUMNS = [
  'address',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
  'email',
  'website',
  'timezone',
  'license_number',
  'hours',
  'logo',
] as const;

/** Store information, admin keys for the sync API, the audit log and idempotency records. */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of STORE_TEXT_COLUMNS) {
    await db.schema.alterTable('dispensaries').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('dispensaries').addColumn('currency', 'text', notNullDefault('USD')).execute();

  await db.schema
    .createTable('admin_keys')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('name', 'text', notNullUnique)
    .addColumn('scope', 'text', notNull)
    .addColumn('key_digest', 'text', notNullUnique)
    .addColumn('created_at', 'text', notNull)
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .$call(columns('text', ['at', 'actor'], notNull))
    .addColumn('dispensary_id', 'integer')
    .$call(columns('text', ['action', 'detail'], notNull))
    .execute();
  await createIndex(db, 'audit_log_dispensary_at', 'audit_log', ['dispensary_id', 'at']);

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('admin_key_id', 'integer', notNull)
    .addColumn('idempotency_key', 'text', notNull)
    .addColumn('request_digest', 'text', notNull)
    .addColumn('status', 'integer', notNull)
    .addColumn('response', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['admin_key_id', 'idempotency_key'])
    .execute();

  await createIndex(db, 'price_entries_updated_at', 'price_entries', ['dispensary_id', 'updated_at']);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('price_entries_updated_at').execute();
  for (const table of ['idempotency_keys', 'audit_log', 'admin_keys'])
    await db.schema.dropTable(table).execute();
  for (const column of [...STORE_TEXT_COLUMNS, 'currency']) {
    await db.schema.alterTable('dispensaries').dropColumn(column).execute();
  }
}
