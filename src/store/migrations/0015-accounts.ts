import type { Kysely } from 'kysely';
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
    .addColumn('email', 'text', (col) => col.notNull().unique())
    // Null until the invitation is accepted: an invited account cannot sign in.
    .addColumn('password_digest', 'text')
    .addColumn('role', 'text', (col) => col.notNull())
    // JSON array of dispensary ids a manager or staff account covers; [] for an operator.
    .addColumn('dispensary_ids', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('account_links')
    .addColumn('digest', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'integer', (col) => col.notNull())
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('account_links_account').on('account_links').column('account_id').execute();
  await db.schema.dropTable('console_sessions').execute();
  await createSessions(db, false);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('console_sessions').execute();
  await createSessions(db, true);
  await db.schema.dropTable('account_links').execute();
  await db.schema.dropTable('accounts').execute();
}

/** The console session table: of an account or of an admin key (`keyOnly`: as 0007 made it). */
// biome-ignore lint/suspicious/noExplicitAny: see up().
async function createSessions(db: Kysely<any>, keyOnly: boolean): Promise<void> {
  let table = db.schema
    .createTable('console_sessions')
    .addColumn('id_digest', 'text', (col) => col.primaryKey())
    .addColumn('admin_key_id', 'integer', (col) => (keyOnly ? col.notNull() : col));
  if (!keyOnly) table = table.addColumn('account_id', 'integer');
  await table
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_admin_key')
    .on('console_sessions')
    .column('admin_key_id')
    .execute();
  if (!keyOnly) {
    await db.schema
      .createIndex('console_sessions_account')
      .on('console_sessions')
      .column('account_id')
      .execute();
  }
}
