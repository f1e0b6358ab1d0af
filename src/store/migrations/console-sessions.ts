import type { Kysely } from 'kysely';
import { columns, createIndex, notNull } from './columns.js';

/**
 * The console session table in its two forms, made by one function so that they cannot drift apart:
 * of an admin key only (`keyOnly`: as 0007 made it, and as undoing 0015 makes it again), or of an
 * account or an admin key (0015 on).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function createConsoleSessions(db: Kysely<any>, keyOnly: boolean): Promise<void> {
  let table = db.schema
    .createTable('console_sessions')
    .addColumn('id_digest', 'text', (col) => col.primaryKey())
    .addColumn('admin_key_id', 'integer', (col) => (keyOnly ? col.notNull() : col));
  if (!keyOnly) table = table.addColumn('account_id', 'integer');
  await table.$call(columns('text', ['created_at', 'last_seen_at', 'expires_at'], notNull)).execute();
  await createIndex(db, 'console_sessions_admin_key', 'console_sessions', ['admin_key_id']);
  if (!keyOnly) {
    await createIndex(db, 'console_sessions_account', 'console_sessions', ['account_id']);
  }
}
