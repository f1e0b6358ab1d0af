import { type Kysely, sql } from 'kysely';
import { onPostgres } from './portable.js';

/**
 * The live feed's numbers (`menu_changes.seq`, the cursors clients hold) end at 2^53 - 1, on both
 * databases: the server holds a cursor as a JavaScript number, which is exact up to there and no
 * further (a larger one would be rounded, and come back to the client as another cursor). 2^53 - 1 is
 * 16 digits, so every cursor also fits the wire's 16 zero-padded digits. At a million changes a second
 * the feed would reach it in 285 years; a write that would pass it fails whole, as any failed write.
 *
 * PostgreSQL: the column was a 4-byte integer, whose sequence ran out at 2^31 - 1 (2.1 billion changes,
 * within reach of a busy installation): it becomes bigint (a rewrite of the table, which retention
 * keeps to a few days of changes), its identity stops at 2^53 - 1, and a check refuses a number past
 * it given explicitly (`db copy`). SQLite: `seq` is already 64-bit; a trigger refuses a row numbered past
 * 2^53 - 1, however it was numbered (SQLite cannot add a check to an existing table without rebuilding it).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function up(db: Kysely<any>): Promise<void> {
  const last = sql.lit(Number.MAX_SAFE_INTEGER);
  if (onPostgres(db)) {
    await sql`alter table menu_changes alter column seq type bigint`.execute(db);
    await sql`alter table menu_changes alter column seq set maxvalue ${last}`.execute(db);
    await sql`alter table menu_changes add constraint menu_changes_seq_range check (seq <= ${last})`.execute(
      db,
    );
    return;
  }
  await sql`
    create trigger menu_changes_seq_range after insert on menu_changes
    when new.seq > ${last}
    begin
      select raise(abort, 'menu_changes.seq would pass 9007199254740991, the last cursor of the live feed');
    end
  `.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  if (onPostgres(db)) {
    await sql`alter table menu_changes drop constraint menu_changes_seq_range`.execute(db);
    await sql`alter table menu_changes alter column seq set no maxvalue`.execute(db);
    await sql`alter table menu_changes alter column seq type integer`.execute(db);
    return;
  }
  await sql`drop trigger menu_changes_seq_range`.execute(db);
}
