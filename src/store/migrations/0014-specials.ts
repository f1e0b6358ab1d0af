import type { Kysely } from 'kysely';
import { columns, createIndex, dispensaryReference, notNull, withTimestamps } from './columns.js';
import { autoIncrementKey } from './portable.js';

/**
 * Specials of each dispensary, and the special boundaries already recorded in the live feed (one row
 * per dispensary and instant: the claim that makes several processes record a boundary once).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('specials')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .$call(dispensaryReference)
    .$call(columns('text', ['name', 'description', 'kind'], notNull))
    .addColumn('value_hundredths', 'bigint', notNull)
    .$call(columns('text', ['applies_to', 'menu_type'], notNull))
    // When it applies: each null where the special has no such limit.
    .$call(columns('text', ['starts_at', 'ends_at', 'days_of_week', 'daily_start', 'daily_end']))
    .$call(withTimestamps)
    .execute();
  await createIndex(db, 'specials_dispensary', 'specials', ['dispensary_id']);

  await db.schema
    .createTable('special_boundaries')
    .$call(dispensaryReference)
    .addColumn('at', 'text', notNull)
    .addColumn('recorded_at', 'text', notNull)
    .addPrimaryKeyConstraint('special_boundaries_key', ['dispensary_id', 'at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('special_boundaries').execute();
  await db.schema.dropTable('specials').execute();
}
