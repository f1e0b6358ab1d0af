import type { Kysely } from 'kysely';
import { createIndex } from './columns.js';

/** Token rotation with a grace period; credential expiry, last use and dispensary allowlists. */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dispensaries').addColumn('previous_token_digest', 'text').execute();
  await db.schema.alterTable('dispensaries').addColumn('previous_token_expires_at', 'text').execute();
  await createIndex(db, 'dispensaries_previous_token', 'dispensaries', ['previous_token_digest']);
  await db.schema.alterTable('credentials').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('credentials').addColumn('last_used_at', 'text').execute();
  // JSON array of dispensary ids the credential may read; null means every dispensary.
  await db.schema.alterTable('credentials').addColumn('dispensary_ids', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('dispensaries_previous_token').execute();
  for (const column of ['previous_token_digest', 'previous_token_expires_at']) {
    await db.schema.alterTable('dispensaries').dropColumn(column).execute();
  }
  for (const column of ['expires_at', 'last_used_at', 'dispensary_ids']) {
    await db.schema.alterTable('credentials').dropColumn(column).execute();
  }
}
