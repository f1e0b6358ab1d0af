import type { Kysely } from 'kysely';

/**
 * Each webhook names the request form whose item shape its deliveries carry (a, b or v1). Existing
 * subscriptions keep Form B's, which every delivery carried before a webhook could choose.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('form', 'text', (col) => col.notNull().defaultTo('b'))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('form').execute();
}
