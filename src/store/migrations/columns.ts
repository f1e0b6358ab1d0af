import type { ColumnDataType, ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';

/**
 * The column and index shapes the migrations repeat, each named once. They build exactly the
 * statements the migrations spelled out before (the same columns in the same order), since applied
 * migrations must keep making the schema that deployed databases already have.
 */

/** What a column adds to its type (NOT NULL, a default, a reference). */
export type ColumnBuild = (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
/** A table being created, as the helpers below extend it (used with the builder's `$call`). */
type TableBuilder = CreateTableBuilder<string, string>;

export const notNull: ColumnBuild = (col) => col.notNull();
export const notNullUnique: ColumnBuild = (col) => col.notNull().unique();

/** NOT NULL with a default, for columns added to tables that already hold rows, or filled later. */
export const notNullDefault =
  (value: string | number): ColumnBuild =>
  (col) =>
    col.notNull().defaultTo(value);

/** A required reference whose rows go when the row it names goes (`target` is `table.column`). */
export const ownedBy =
  (target: string): ColumnBuild =>
  (col) =>
    col.notNull().references(target).onDelete('cascade');

/** Columns of one type, in the order given, each built as `build` says (nullable without it). */
export const columns =
  (type: ColumnDataType, names: readonly string[], build?: ColumnBuild) =>
  (table: TableBuilder): TableBuilder =>
    names.reduce((built, name) => built.addColumn(name, type, build), table);

/** `dispensary_id`: the dispensary the row belongs to, deleted with it. */
export const dispensaryReference = (table: TableBuilder): TableBuilder =>
  table.addColumn('dispensary_id', 'integer', ownedBy('dispensaries.id'));

/** `created_at` and `updated_at`: ISO instants as text, like every time the store keeps. */
export const withTimestamps = columns('text', ['created_at', 'updated_at'], notNull);

/** An index over `columns` of `table` (unique when asked). */
export async function createIndex(
  // biome-ignore lint/suspicious/noExplicitAny: migrations see no table types.
  db: Kysely<any>,
  name: string,
  table: string,
  columns: readonly string[],
  options: { unique?: boolean } = {},
): Promise<void> {
  const index = db.schema
    .createIndex(name)
    .on(table)
    .columns([...columns]);
  await (options.unique ? index.unique() : index).execute();
}
