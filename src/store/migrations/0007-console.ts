import type { Kysely } from 'kysely';

/**
 * The console: sign-in sessions (only a digest of each session id is kept) and the per-credential
 * request counters behind the Usage page (one row per credential and hour, never one per request).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('id_digest', 'text', (col) => col.primaryKey())
    .addColumn('admin_key_id', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_admin_key')
    .on('console_sessions')
    .column('admin_key_id')
    .execute();
  await db.schema
    .createTable('usage_counts')
    .addColumn('username', 'text', (col) => col.notNull())
    .addColumn('hour', 'text', (col) => col.notNull())
    .addColumn('requests', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('usage_counts_pk', ['username', 'hour'])
    .execute();
  await db.schema.createIndex('usage_counts_hour').on('usage_counts').column('hour').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_counts').execute();
  await db.schema.dropTable('console_sessions').execute();
}
