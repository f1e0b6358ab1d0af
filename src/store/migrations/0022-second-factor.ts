import type { Kysely } from 'kysely';
import { createIndex, notNull, notNullDefault } from './columns.js';

/**
 * One-time codes (TOTP) as a second factor: each account's secret (encrypted, as webhook secrets are),
 * its recovery codes (SHA-256 digests, each used once), and the sign-ins waiting for a code (a digest
 * of the token the browser holds between the password and the code).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_totp')
    .addColumn('account_id', 'integer', (col) => col.primaryKey())
    // AES-256-GCM under the key of src/services/webhook-key.ts; never stored in the clear.
    .addColumn('secret', 'text', notNull)
    // Null while enrolment waits for its first code.
    .addColumn('confirmed_at', 'text')
    // The last 30-second step a code was accepted for: a code works once.
    .addColumn('last_step', 'integer', notNullDefault(0))
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema
    .createTable('account_recovery_codes')
    .addColumn('digest', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'integer', notNull)
    .addColumn('used_at', 'text')
    .execute();
  await createIndex(db, 'account_recovery_codes_account', 'account_recovery_codes', ['account_id']);
  await db.schema
    .createTable('pending_sign_ins')
    .addColumn('digest', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'integer', notNull)
    .addColumn('expires_at', 'text', notNull)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pending_sign_ins').execute();
  await db.schema.dropTable('account_recovery_codes').execute();
  await db.schema.dropTable('account_totp').execute();
}
