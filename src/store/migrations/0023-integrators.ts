import type { Kysely } from 'kysely';
import { columns, createIndex, notNull, withTimestamps } from './columns.js';
import { autoIncrementKey } from './portable.js';

/**
 * Integrators who register themselves at /developers: each is an account of role `integrator` (no
 * password there until an operator approves it) with its profile, its confirmation link (a digest), the
 * password it chose (scrypt, kept here until approval), and the API credential approval made. Their
 * requests to read a dispensary wait here for the dispensary's managers; an approved one may hold a
 * token of the integrator's own for that dispensary (a digest), read with as the dispensary's token is.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integrators')
    .addColumn('account_id', 'integer', (col) => col.primaryKey())
    // Its profile, as it registered.
    .$call(columns('text', ['name', 'company', 'building'], notNull))
    // unconfirmed, waiting (for the operator), approved, declined.
    .addColumn('status', 'text', notNull)
    // The chosen password until approval moves it to the account; null after.
    .addColumn('pending_password', 'text')
    // SHA-256 of the confirmation link's secret, until it is used.
    .addColumn('confirm_digest', 'text', (col) => col.unique())
    .addColumn('confirm_expires_at', 'text')
    .addColumn('credential_username', 'text')
    .$call(withTimestamps)
    .execute();
  await db.schema
    .createTable('integrator_access')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .$call(columns('integer', ['account_id', 'dispensary_id'], notNull))
    // waiting (for a manager), approved, declined.
    .addColumn('status', 'text', notNull)
    .addColumn('decided_by', 'text')
    // SHA-256 of the integrator's own token for the dispensary (shown to it once), once it asked for one.
    .addColumn('token_digest', 'text', (col) => col.unique())
    .$call(withTimestamps)
    .execute();
  await createIndex(db, 'integrator_access_pair', 'integrator_access', ['account_id', 'dispensary_id'], {
    unique: true,
  });
  await createIndex(db, 'integrator_access_dispensary', 'integrator_access', ['dispensary_id']);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integrator_access').execute();
  await db.schema.dropTable('integrators').execute();
}
