import { type Kysely, sql } from 'kysely';
import { openKyselyStore } from '../../src/store/open.js';
import type { Database } from '../../src/store/schema.js';
import { onPostgres } from './database.js';

/**
 * Makes the live feed number its next change `last + 1`, as a feed that has given out `last` numbers
 * would: the only way a test reaches the end of the cursors' range. SQLite keeps an AUTOINCREMENT
 * table's last number in sqlite_sequence (a row appears with the table's first insert), PostgreSQL in
 * the column's identity sequence.
 */
export async function continueFeedAfter(db: Kysely<Database>, last: number): Promise<void> {
  if (onPostgres) {
    await sql`select setval(pg_get_serial_sequence('menu_changes', 'seq'), ${last})`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await sql`delete from sqlite_sequence where name = 'menu_changes'`.execute(trx);
    await sql`insert into sqlite_sequence (name, seq) values ('menu_changes', ${last})`.execute(trx);
  });
}

/** continueFeedAfter on the database at `address` (a server process's), through a store of its own. */
export async function continueFeedAt(address: string, last: number): Promise<void> {
  const store = await openKyselyStore(address);
  try {
    await continueFeedAfter(store.database, last);
  } finally {
    await store.close();
  }
}
