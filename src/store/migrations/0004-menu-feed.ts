import type { Kysely } from 'kysely';
import { columns, createIndex, notNull } from './columns.js';
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
    .addColumn('dispensary_id', 'integer', notNull)
    .$call(columns('text', ['at', 'type'], notNull))
    .addColumn('item_id', 'integer')
    .$call(columns('text', ['reason', 'item']))
    .execute();
  await createIndex(db, 'menu_changes_dispensary_seq', 'menu_changes', ['dispensary_id', 'seq']);
  await createIndex(db, 'menu_changes_at', 'menu_changes', ['at']);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('menu_changes').execute();
}
