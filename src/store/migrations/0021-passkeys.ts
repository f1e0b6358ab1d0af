import type { Kysely } from 'kysely';
import { createIndex, notNull, notNullDefault, notNullUnique } from './columns.js';
import { autoIncrementKey } from './portable.js';

/**
 * Passkeys (WebAuthn) of accounts: each credential's id and public key (never a private key: it stays
 * in the authenticator), and the challenges of ceremonies under way, which are used once and expire.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_passkeys')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('account_id', 'integer', notNull)
    // The authenticator's credential id, base64url; unique across accounts (it names the key).
    .addColumn('credential_id', 'text', notNullUnique)
    // The COSE public key, base64url.
    .addColumn('public_key', 'text', notNull)
    .addColumn('sign_count', 'integer', notNullDefault(0))
    // JSON array of the transports the authenticator named (internal, usb, hybrid, ...).
    .addColumn('transports', 'text', notNullDefault('[]'))
    .addColumn('name', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('last_used_at', 'text')
    .execute();
  await createIndex(db, 'account_passkeys_account', 'account_passkeys', ['account_id']);
  await db.schema
    .createTable('passkey_challenges')
    // The challenge itself (base64url): it is no secret (the browser sends it back signed), only single-use.
    .addColumn('challenge', 'text', (col) => col.primaryKey())
    // `register` (of the account below) or `sign_in` (of whoever holds a passkey).
    .addColumn('purpose', 'text', notNull)
    .addColumn('account_id', 'integer')
    .addColumn('expires_at', 'text', notNull)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('passkey_challenges').execute();
  await db.schema.dropTable('account_passkeys').execute();
}
