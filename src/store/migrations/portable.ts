import { type ColumnDefinitionBuilder, type Kysely, SqliteAdapter } from 'kysely';

/**
 * An auto-numbered integer primary key: SQLite spells it AUTOINCREMENT, PostgreSQL an identity column.
 * This is the one place where the migrations need to know the dialect.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations see no table types.
export function autoIncrementKey(db: Kysely<any>): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  return sqlite
    ? (col) => col.primaryKey().autoIncrement()
    : (col) => col.primaryKey().generatedByDefaultAsIdentity();
}
