import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { KyselyStore } from '../kysely-store.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';

/** SQLite allows 32,766 bound parameters; an item row has 18 columns. */
const INSERT_CHUNK_ROWS = 1_000;

export function openSqliteStore(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new SqliteDatabase(path);
  // WAL lets the CLI write while server processes read; busy_timeout makes a writer wait rather than fail.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  return new KyselyStore({
    db,
    location: `sqlite:${path}`,
    insertChunkRows: INSERT_CHUNK_ROWS,
    isUniqueViolation: (error) =>
      error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_CONSTRAINT_UNIQUE'),
  });
}
