import { type Kysely, sql } from 'kysely';
import { onPostgres } from './portable.js';

/**
 * PostgreSQL compresses the long texts of items and of the live feed with lz4, not pglz, where the
 * server was built with lz4: in a full sync that changes 5,000 rich items, pglz took about a quarter
 * of PostgreSQL's CPU time (bench/PROFILE.md, round fourteen). Values written before keep pglz and
 * are read alike; nothing is rewritten. SQLite compresses nothing.
 */
const LONG_TEXTS = [
  ['items', 'description'],
  ['items', 'fields_json'],
  ['items', 'cannabinoids'],
  ['items', 'terpenes'],
  ['items', 'batch'],
  ['items', 'images'],
  ['menu_changes', 'item'],
] as const;

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
async function compress(db: Kysely<any>, method: 'lz4' | 'default'): Promise<void> {
  if (!onPostgres(db)) return;
  const { rows } = await sql<{ lz4: boolean }>`
    select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
    db,
  );
  if (!rows[0]?.lz4) return;
  for (const [table, column] of LONG_TEXTS) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression ${sql.raw(method)}`.execute(
      db,
    );
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see compress().
export async function up(db: Kysely<any>): Promise<void> {
  await compress(db, 'lz4');
}

// biome-ignore lint/suspicious/noExplicitAny: see compress().
export async function down(db: Kysely<any>): Promise<void> {
  await compress(db, 'default');
}
