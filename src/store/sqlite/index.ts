import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { createStore, type KyselyStore } from '../create.js';
import { withReadArrays } from '../dialect.js';
import { LATEST_MIGRATION } from '../migrations/index.js';
import type { Database } from '../schema.js';
import { sqliteBatches } from './batches.js';

/** SQLITE_MAX_VARIABLE_NUMBER of the SQLite that better-sqlite3 bundles. */
const MAX_PARAMETERS = 32_766;

/** How often a connection checks that its path still names the file it has open, ms. */
const FILE_CHECK_MS = 500;
/** How long a writer waits for another process's write lock (and, in this process, for its turn). */
const BUSY_TIMEOUT_MS = 5000;

function connect(path: string): SqliteDatabase.Database {
  const connection = new SqliteDatabase(path);
  try {
    // WAL lets the CLI write while server processes read; busy_timeout makes a writer wait rather than fail.
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    connection.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}

/** What a rollback runs when SQLite already rolled the transaction back. */
const NO_OP = { reader: false, run: () => ({ changes: 0, lastInsertRowid: 0 }) } as unknown;

/** Raised while the database file is missing or was replaced; `code` makes it a 503 (unavailable). */
class DatabaseFileFault extends Error {
  readonly code = 'SQLITE_CANTOPEN';
}

/**
 * The one connection of a SQLite store, as Kysely's driver sees it (it only prepares and closes).
 * An open SQLite file that is deleted keeps working on its orphaned inode: writes would vanish at the
 * next start, and the CLI would write to a new file the server never reads. So every FILE_CHECK_MS the
 * path is compared with the file open: while the path is missing, queries fail as SQLITE_CANTOPEN
 * (503, Retry-After); when the same file comes back (moved back) they work again; when another file
 * takes its place (a restored backup), the connection is reopened on it once it holds a migrated
 * database. The change feed drops every cache when reads recover, so nothing stale is served.
 */
class WatchedConnection {
  private connection: SqliteDatabase.Database | undefined;
  private identity: { dev: number; ino: number } | undefined;
  private checkedAt = 0;
  private fault: Error | undefined;
  /** The statements of readArrays, by SQL: prepared on `connection`, dropped with it. */
  private readonly arrayStatements = new Map<string, SqliteDatabase.Statement<unknown[], unknown[]>>();
  /** The statements of run, by SQL, likewise. */
  private readonly runStatements = new Map<string, SqliteDatabase.Statement<unknown[]>>();

  constructor(private readonly path: string) {
    this.connection = connect(path);
    this.identity = this.stat();
    this.checkedAt = Date.now();
  }

  prepare(source: string): SqliteDatabase.Statement {
    const connection = this.open();
    // A disk-full or I/O error makes SQLite roll the transaction back itself; Kysely's own rollback
    // would then fail ("no transaction is active") and hide the real error, turning a 503 into a 500.
    if (source === 'rollback' && !connection.inTransaction) return NO_OP as SqliteDatabase.Statement;
    // Kysely's plain `begin` defers the write lock: a transaction that reads and then writes fails at
    // once with "database is locked" when another process wrote in between (busy_timeout does not
    // apply). Every Kysely transaction here writes, so it takes the write lock up front and waits.
    if (source === 'begin') return connection.prepare('begin immediate');
    return connection.prepare(source);
  }

  /**
   * Runs a statement that returns rows (a select, or a write with RETURNING) and gives them as arrays.
   * Only for use while Kysely holds this connection (inside db.connection() or a db.transaction()), as
   * its own queries are: the statement then runs in the transaction open on it. Statements are kept
   * for the next run (a bounded number: lists of ids of different lengths are different SQL).
   */
  readArrays(source: string, parameters: readonly unknown[]): unknown[][] {
    return this.arrayStatement(source).all(...parameters);
  }

  /** Runs a statement that returns no rows, on the same terms as readArrays, and keeps it as readArrays does. */
  run(source: string, parameters: readonly unknown[]): void {
    const connection = this.open();
    let statement = this.runStatements.get(source);
    if (!statement) {
      statement = connection.prepare<unknown[]>(source);
      if (this.runStatements.size >= ARRAY_STATEMENTS_KEPT) this.runStatements.clear();
      this.runStatements.set(source, statement);
    }
    statement.run(...parameters);
  }

  private arrayStatement(source: string): SqliteDatabase.Statement<unknown[], unknown[]> {
    const connection = this.open();
    let statement = this.arrayStatements.get(source);
    if (!statement) {
      statement = connection.prepare<unknown[], unknown[]>(source).raw(true);
      // Reads of a list of ids differ by the list's length: keep a bounded number of them.
      if (this.arrayStatements.size >= ARRAY_STATEMENTS_KEPT) this.arrayStatements.clear();
      this.arrayStatements.set(source, statement);
    }
    return statement;
  }

  close(): void {
    this.arrayStatements.clear();
    this.runStatements.clear();
    this.connection?.close();
    this.connection = undefined;
  }

  /** The open database, once the file has been checked; throws while it is gone or replaced. */
  private open(): SqliteDatabase.Database {
    this.check();
    if (this.fault || !this.connection) throw this.fault ?? new DatabaseFileFault('the database is closed');
    return this.connection;
  }

  /**
   * Runs `work` holding the database's write lock (waiting up to busy_timeout for it), so that two
   * processes opening a new file together do not both run the same migrations. Kysely runs SQLite
   * migrations outside any transaction, so here they all run inside this one.
   */
  async exclusively(work: () => Promise<void>): Promise<void> {
    const connection = this.connection;
    if (!connection) throw this.fault ?? new DatabaseFileFault('the database is closed');
    connection.exec('begin immediate');
    try {
      await work();
      connection.exec('commit');
    } catch (error) {
      if (connection.inTransaction) connection.exec('rollback');
      throw error;
    }
  }

  private stat(): { dev: number; ino: number } | undefined {
    if (this.path === ':memory:') return { dev: 0, ino: 0 };
    try {
      const { dev, ino } = statSync(this.path);
      return { dev, ino };
    } catch {
      return undefined;
    }
  }

  private check(): void {
    const now = Date.now();
    if (this.path === ':memory:' || now - this.checkedAt < FILE_CHECK_MS) return;
    this.checkedAt = now;
    const current = this.stat();
    if (current && this.identity && current.dev === this.identity.dev && current.ino === this.identity.ino) {
      this.fault = undefined;
      return;
    }
    if (!current) {
      // Kept open: the same file may be moved back.
      this.fault = new DatabaseFileFault(`the database file ${this.path} is gone`);
      return;
    }
    if (this.connection) {
      // Another file at the path: let go of the old one first (its -wal is checkpointed into it, not
      // into the new file). Until the next check, queries fail, so the change feed sees the outage.
      this.close();
      this.identity = undefined;
      this.fault = new DatabaseFileFault(`the database file ${this.path} was replaced`);
      return;
    }
    // Use the file at the path once it is a database of ours.
    try {
      const next = connect(this.path);
      const migrated = next
        .prepare('select 1 from schema_migrations where name = ?')
        .pluck()
        .get(LATEST_MIGRATION);
      if (!migrated) {
        next.close();
        this.fault = new DatabaseFileFault(`the database file ${this.path} is not migrated`);
        return;
      }
      this.connection = next;
      this.identity = current;
      this.fault = undefined;
    } catch (error) {
      this.fault = new DatabaseFileFault(`the database file ${this.path} cannot be opened`, { cause: error });
    }
  }
}

/** Prepared statements readArrays keeps at most (beyond them it starts over). */
const ARRAY_STATEMENTS_KEPT = 256;

export function openSqliteStore(path: string): KyselyStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new WatchedConnection(path);
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: connection as unknown as SqliteDatabase.Database }),
  });
  return createStore({
    db,
    location: `sqlite:${path}`,
    maxParameters: MAX_PARAMETERS,
    writeWaitMs: BUSY_TIMEOUT_MS,
    batches: sqliteBatches(connection),
    canStoreText: () => true,
    migrationLock: (migrate) => connection.exclusively(migrate),
    // Not db.transaction(): its BEGIN becomes BEGIN IMMEDIATE (see WatchedConnection.prepare), which
    // would wait for a writer in another process and hold the next one up. A deferred BEGIN takes no
    // lock: in WAL mode its first read fixes the snapshot the rest of it sees, while writers go on.
    // db.connection() keeps the one connection for it, so no other query of this process runs inside,
    // and readArrays runs on that same connection, in the transaction.
    readTransaction: (work) =>
      db.connection().execute(async (trx) => {
        await sql`begin deferred`.execute(trx);
        try {
          const result = await withReadArrays(
            async (query) => connection.readArrays(query.sql, query.parameters),
            work,
          );
          await sql`commit`.execute(trx);
          return result;
        } catch (error) {
          await sql`rollback`.execute(trx);
          throw error;
        }
      }),
    // Kysely's transaction runs on this same (only) connection: the read is inside it.
    arraysInWrite: async (_trx, query) => connection.readArrays(query.sql, query.parameters),
    // A primary key is unique too (the idempotency claim's row collides on one).
    isUniqueViolation: (error) =>
      error instanceof Error &&
      'code' in error &&
      /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)/.test(String(error.code)),
  });
}
