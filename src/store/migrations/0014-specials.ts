import type { Kysely } from 'kysely';
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
    .addColumn('dispensary_id', 'integer', (col) =>
      col.notNull().references('dispensaries.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('value_hundredths', 'bigint', (col) => col.notNull())
    .addColumn('applies_to', 'text', (col) => col.notNull())
    .addColumn('menu_type', 'text', (col) => col.notNull())
    .addColumn('starts_at', 'text')
    .addColumn('ends_at', 'text')
    .addColumn('days_of_week', 'text')
    .addColumn('daily_start', 'text')
    .addColumn('daily_end', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('specials_dispensary').on('specials').column('dispensary_id').execute();

  await db.schema
    .createTable('special_boundaries')
    .addColumn('dispensary_id', 'integer', (col) =>
      col.notNull().references('dispensaries.id').onDelete('cascade'),
    )
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('recorded_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('special_boundaries_key', ['dispensary_id', 'at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('special_boundaries').execute();
  await db.schema.dropTable('specials').execute();
}
