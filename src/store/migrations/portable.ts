import { type ColumnDefinitionBuilder, type Kysely, SqliteAdapter } from 'kysely';

/**
 * An auto-numbered integer primary key: SQLite spells it AUTOINCREMENT, PostgreSQL an identity column.
 * This file is the one place where the migrations need to know the dialect.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations see no table types.
export function autoIncrementKey(db: Kysely<any>): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return onPostgres(db)
    ? (col) => col.primaryKey().generatedByDefaultAsIdentity()
    : (col) => col.primaryKey().autoIncrement();
}

/** Whether the migrations run on PostgreSQL (for its storage settings, which SQLite has no word for). */
// biome-ignore lint/suspicious/noExplicitAny: migrations see no table types.
export function onPostgres(db: Kysely<any>): boolean {
  return !(db.getExecutor().adapter instanceof SqliteAdapter);
}
