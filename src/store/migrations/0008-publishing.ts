import type { Kysely } from 'kysely';
import { createIndex, notNullDefault } from './columns.js';

/**
 * Publishing: a dispensary is private until published; its public pages live at its slug (unique,
 * null until first published), and show stock quantities only when show_stock is set.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dispensaries').addColumn('published', 'integer', notNullDefault(0)).execute();
  await db.schema.alterTable('dispensaries').addColumn('slug', 'text').execute();
  await db.schema.alterTable('dispensaries').addColumn('show_stock', 'integer', notNullDefault(0)).execute();
  await createIndex(db, 'dispensaries_slug', 'dispensaries', ['slug'], { unique: true });
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('dispensaries_slug').execute();
  for (const column of ['published', 'slug', 'show_stock']) {
    await db.schema.alterTable('dispensaries').dropColumn(column).execute();
  }
}
