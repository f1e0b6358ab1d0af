import type { Kysely } from 'kysely';
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
  await db.schema
    .alterTable('dispensaries')
    .addColumn('currency', 'text', (col) => col.notNull().defaultTo('USD'))
    .execute();

  await db.schema
    .createTable('admin_keys')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('key_digest', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('actor', 'text', (col) => col.notNull())
    .addColumn('dispensary_id', 'integer')
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('detail', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_dispensary_at')
    .on('audit_log')
    .columns(['dispensary_id', 'at'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('admin_key_id', 'integer', (col) => col.notNull())
    .addColumn('idempotency_key', 'text', (col) => col.notNull())
    .addColumn('request_digest', 'text', (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull())
    .addColumn('response', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['admin_key_id', 'idempotency_key'])
    .execute();

  await db.schema
    .createIndex('price_entries_updated_at')
    .on('price_entries')
    .columns(['dispensary_id', 'updated_at'])
    .execute();
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
