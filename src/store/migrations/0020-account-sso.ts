import type { Kysely } from 'kysely';

/**
 * Single sign-on: the OpenID Connect identity (issuer and subject) an account signed in with first.
 * Later sign-ins must come from that same identity, so that an email address the provider hands to
 * someone else does not carry the account with it. Null: never signed in with single sign-on. An
 * account with an identity is active even without a password (docs/accounts.md).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('sso_identity', 'text').execute();
  await db.schema
    .createIndex('accounts_sso_identity')
    .on('accounts')
    .column('sso_identity')
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('accounts_sso_identity').execute();
  await db.schema.alterTable('accounts').dropColumn('sso_identity').execute();
}
