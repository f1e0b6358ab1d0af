import type { Kysely } from 'kysely';
import { notNullDefault } from './columns.js';

/**
 * Two switches of the public pages, both on by default: show_regular_price (a special's regular price
 * struck through beside the price people pay; Massachusetts treats strike-through prices on online menus
 * as prohibited advertising) and show_potency (the potency badges; New York restricts promoting potency).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['show_regular_price', 'show_potency']) {
    await db.schema.alterTable('dispensaries').addColumn(column, 'integer', notNullDefault(1)).execute();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['show_regular_price', 'show_potency']) {
    await db.schema.alterTable('dispensaries').dropColumn(column).execute();
  }
}
