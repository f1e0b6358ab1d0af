import type { Kysely } from 'kysely';
import { autoIncrementKey } from './portable.js';

/**
 * The live menu feed: one row per item that entered, changed in or left a dispensary's active menu,
 * and per change of its store information. `seq` is the feed's cursor; `item` is the canonical item
 * JSON as it was after the change, so that a change is self-contained.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('menu_changes')
    .addColumn('seq', 'integer', autoIncrementKey(db))
    .addColumn('dispensary_id', 'integer', (col) => col.notNull())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('item_id', 'integer')
    .addColumn('reason', 'text')
    .addColumn('item', 'text')
    .execute();
  await db.schema
    .createIndex('menu_changes_dispensary_seq')
    .on('menu_changes')
    .columns(['dispensary_id', 'seq'])
    .execute();
  await db.schema.createIndex('menu_changes_at').on('menu_changes').column('at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('menu_changes').execute();
}
