import type { Kysely } from 'kysely';

/** When each admin key was last used (to the minute), shown by `admin-key list`. */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('admin_keys').addColumn('last_used_at', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('admin_keys').dropColumn('last_used_at').execute();
}
