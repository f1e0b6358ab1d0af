import type { Kysely } from 'kysely';
import { columns, createIndex, notNull, notNullDefault, notNullUnique, withTimestamps } from './columns.js';
import { createConsoleSessions } from './console-sessions.js';
import { autoIncrementKey } from './portable.js';

/**
 * People: accounts (an email, a password hashed as credentials' are, a role and the dispensaries it
 * covers), their one-time links (invitation and password reset, kept as digests), and console sessions
 * that belong to an account or to an admin key. The session table is made anew, since SQLite cannot
 * drop a NOT NULL: sessions open at the upgrade end, and their holders sign in again once.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('email', 'text', notNullUnique)
    // Null until the invitation is accepted: an invited account cannot sign in.
    .addColumn('password_digest', 'text')
    .addColumn('role', 'text', notNull)
    // JSON array of dispensary ids a manager or staff account covers; [] for an operator.
    .addColumn('dispensary_ids', 'text', notNullDefault('[]'))
    .$call(withTimestamps)
    .execute();
  await db.schema
    .createTable('account_links')
    .addColumn('digest', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'integer', notNull)
    .$call(columns('text', ['purpose', 'created_at', 'expires_at'], notNull))
    .execute();
  await createIndex(db, 'account_links_account', 'account_links', ['account_id']);
  await db.schema.dropTable('console_sessions').execute();
  await createConsoleSessions(db, false);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('console_sessions').execute();
  await createConsoleSessions(db, true);
  await db.schema.dropTable('account_links').execute();
  await db.schema.dropTable('accounts').execute();
}
