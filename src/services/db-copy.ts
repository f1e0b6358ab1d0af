import { resolve } from 'node:path';
import { type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import type { KyselyStore } from '../store/create.js';
import { describeAddress, isPostgresAddress, openKyselyStore } from '../store/open.js';
import type { Database } from '../store/schema.js';
import { TABLES } from '../store/tables.js';
import { ServiceError } from './errors.js';

export interface CopyProgress {
  table: string;
  /** Rows of this table written so far. */
  copied: number;
  /** Rows of this table in the source. */
  total: number;
}

export interface CopyOptions {
  /** Empty a target that holds data first (in the same transaction) instead of refusing. */
  force?: boolean;
  /** Most rows read and written per statement. */
  chunkRows?: number;
  onProgress?: (progress: CopyProgress) => void;
  /** Called when the target was a SQLite file that did not exist and was created. */
  onCreate?: (path: string) => void;
}

export interface CopyReport {
  from: string;
  to: string;
  /** Whether the target held data that the copy replaced (only with force). */
  replaced: boolean;
  /** Row counts per table, verified equal in source and target before the copy committed. */
  tables: { table: string; rows: number }[];
  rows: number;
}

/** Tables as plain rows: the copy moves every column of every row, whatever the table. */
type AnyDatabase = Record<string, Record<string, unknown>>;
type Row = Record<string, unknown>;

/** SQLite allows 32,766 bound parameters per statement and PostgreSQL 65,535: stay under both. */
const MAX_PARAMETERS = 30_000;
const DEFAULT_CHUNK_ROWS = 500;

/**
 * Copies every table from one database to another: SQLite to PostgreSQL, PostgreSQL to SQLite, or
 * either to its own kind. Both are migrated to this version first, so their tables are the same.
 * The source is read from one consistent snapshot; the target is written in one transaction that
 * also checks the row counts before it commits, so a copy that fails for any reason leaves the
 * target exactly as it was. Rows keep their ids, so token digests, password hashes and everything
 * that refers to an id stay valid: tokens and passwords issued before the copy keep working.
 */
export async function copyDatabase(from: string, to: string, options: CopyOptions = {}): Promise<CopyReport> {
  if (sameDatabase(from, to)) {
    throw new ServiceError('invalid_request', 'The source and the target are the same database.');
  }
  let source: KyselyStore | undefined;
  let target: KyselyStore | undefined;
  try {
    // A source that does not exist is an error, never a new empty database copied as "0 rows".
    source = await openKyselyStore(from, { poolSize: 2, missing: 'refuse' });
    target = await openKyselyStore(to, { poolSize: 2, onCreate: options.onCreate });
    const report = await copyTables(source.database, target.database, options);
    return { from: describeAddress(from), to: describeAddress(to), ...report };
  } finally {
    await source?.close();
    await target?.close();
  }
}

/** The copy itself, between two migrated databases. */
export async function copyTables(
  sourceDb: Kysely<Database>,
  targetDb: Kysely<Database>,
  options: CopyOptions = {},
): Promise<Omit<CopyReport, 'from' | 'to'>> {
  const source = sourceDb as unknown as Kysely<AnyDatabase>;
  const target = targetDb as unknown as Kysely<AnyDatabase>;
  const chunkRows = options.chunkRows ?? DEFAULT_CHUNK_ROWS;

  // A read-only snapshot on PostgreSQL; SQLite reads one snapshot inside any transaction.
  const snapshot = isPostgres(source)
    ? source.transaction().setIsolationLevel('repeatable read').setAccessMode('read only')
    : source.transaction();
  return snapshot.execute(async (reader) => {
    const totals = new Map<string, number>();
    for (const { name } of TABLES) totals.set(name, await countRows(reader, name));

    return target.transaction().execute(async (writer) => {
      const present = [];
      for (const { name } of TABLES) {
        const rows = await countRows(writer, name);
        if (rows > 0) present.push(`${name}: ${rows}`);
      }
      if (present.length > 0 && !options.force) {
        throw new ServiceError(
          'conflict',
          `The target already holds data (${present.join(', ')}). Copy into an empty database, or pass --force to replace everything in it.`,
        );
      }
      if (present.length > 0) {
        for (const { name } of [...TABLES].reverse()) await writer.deleteFrom(name).execute();
      }

      for (const { name, key } of TABLES) {
        const total = totals.get(name)!;
        let copied = 0;
        options.onProgress?.({ table: name, copied, total });
        for await (const rows of readInKeyOrder(reader, name, key, chunkRows)) {
          const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / Object.keys(rows[0]!).length));
          for (let start = 0; start < rows.length; start += perInsert) {
            await writer
              .insertInto(name)
              .values(rows.slice(start, start + perInsert))
              .execute();
          }
          copied += rows.length;
          options.onProgress?.({ table: name, copied, total });
        }
      }

      if (isPostgres(target)) await resetIdentitySequences(writer);

      const tables = [];
      for (const { name } of TABLES) {
        const expected = totals.get(name)!;
        const written = await countRows(writer, name);
        if (written !== expected) {
          throw new ServiceError(
            'internal_error',
            `The copy of ${name} has ${written} rows where the source has ${expected}; nothing was written.`,
          );
        }
        tables.push({ table: name, rows: written });
      }
      return {
        replaced: present.length > 0,
        tables,
        rows: tables.reduce((sum, table) => sum + table.rows, 0),
      };
    });
  });
}

function isPostgres(db: Kysely<AnyDatabase>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

async function countRows(db: Kysely<AnyDatabase> | Transaction<AnyDatabase>, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select(({ fn }) => fn.countAll<number>().as('rows'))
    .executeTakeFirstOrThrow();
  return Number(row.rows);
}

/** Reads a table in chunks ordered by its key, each chunk starting after the last key of the one before. */
async function* readInKeyOrder(
  db: Transaction<AnyDatabase>,
  table: string,
  key: readonly string[],
  chunkRows: number,
): AsyncGenerator<Row[]> {
  let after: unknown[] | undefined;
  for (;;) {
    let query = db.selectFrom(table).selectAll();
    if (after) {
      const columns = sql.join(key.map((column) => sql.ref(column)));
      query = query.where(sql<boolean>`(${columns}) > (${sql.join(after)})`);
    }
    for (const column of key) query = query.orderBy(column);
    const rows = (await query.limit(chunkRows).execute()) as Row[];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < chunkRows) return;
    const last = rows.at(-1)!;
    after = key.map((column) => last[column]);
  }
}

/** Rows keep their ids, so each identity sequence must continue after the largest id copied. */
async function resetIdentitySequences(db: Transaction<AnyDatabase>): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and (is_identity = 'YES' or column_default like 'nextval(%')
  `.execute(db);
  const copied = new Set<string>(TABLES.map((table) => table.name));
  for (const { table_name: table, column_name: column } of rows) {
    if (!copied.has(table)) continue;
    await sql`
      select setval(
        pg_get_serial_sequence(${`"${table}"`}, ${column}),
        coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1,
        false
      )
    `.execute(db);
  }
}

function sameDatabase(a: string, b: string): boolean {
  const normal = (address: string) =>
    isPostgresAddress(address) ? address : resolve(address.replace(/^sqlite:/, ''));
  return normal(a) === normal(b);
}
