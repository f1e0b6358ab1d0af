import type { Kysely } from 'kysely';
import { createIndex, notNull } from './columns.js';
import { createConsoleSessions } from './console-sessions.js';

/**
 * The console: sign-in sessions (only a digest of each session id is kept) and the per-credential
 * request counters behind the Usage page (one row per credential and hour, never one per request).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await createConsoleSessions(db, true);
  await db.schema
    .createTable('usage_counts')
    .addColumn('username', 'text', notNull)
    .addColumn('hour', 'text', notNull)
    .addColumn('requests', 'integer', notNull)
    .addPrimaryKeyConstraint('usage_counts_pk', ['username', 'hour'])
    .execute();
  await createIndex(db, 'usage_counts_hour', 'usage_counts', ['hour']);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_counts').execute();
  await db.schema.dropTable('console_sessions').execute();
}
