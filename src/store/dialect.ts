import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { BatchStatements, IdList } from './batches.js';
import type { Database } from './schema.js';

/**
 * What a database folder (sqlite/, postgres/) supplies to the repositories: a Kysely instance plus the
 * few facts and hooks that differ per database. The queries themselves are written once, in Kysely.
 */
export interface Dialect {
  readonly db: Kysely<Database>;
  /** Where the data lives, without secrets, for logs and messages. */
  readonly location: string;
  /** The most bound parameters one statement may carry (SQLite 32,766; PostgreSQL 65,535). */
  readonly maxParameters: number;
  isUniqueViolation(error: unknown): boolean;
  /**
   * How many recorded writes (Writer) may hold a pooled connection at once, so that a backlog of writes
   * leaves the rest of the pool to reads (PostgreSQL: half the pool). Undefined: no limit (SQLite's one
   * connection runs one statement at a time anyway).
   */
  readonly writeSlots?: number;
  /**
   * How long a recorded write may wait for its turn and slot before it fails as unavailable (503):
   * what it would otherwise have waited for a connection or a lock (PostgreSQL: the pool's connect
   * timeout; SQLite: its busy timeout). Undefined: no limit.
   */
  readonly writeWaitMs?: number;
  /**
   * Whether claims lock the rows they take and skip rows others hold (PostgreSQL: FOR UPDATE SKIP
   * LOCKED). SQLite has no row locks and needs none: its writing transactions run one at a time.
   */
  readonly skipLocked?: boolean;
  /**
   * Whether a text column can hold this value at all. PostgreSQL text cannot hold NUL, so a lookup by
   * such a value finds nothing (as on SQLite) instead of failing with "invalid byte sequence" (a 500).
   */
  canStoreText(value: string): boolean;
  /**
   * Runs `work`, a read of several statements, in a read-only transaction that sees one snapshot of the
   * database throughout, without waiting for writers or holding them up. Not `db.transaction()`:
   * PostgreSQL's default READ COMMITTED takes a new snapshot per statement (so: REPEATABLE READ), and
   * a SQLite transaction here begins IMMEDIATE, taking the write lock (so: a deferred BEGIN, whose
   * first read fixes the snapshot in WAL mode). `work` runs its queries with `readArrays`, valid only
   * until `work` settles.
   */
  readTransaction<T>(work: (readArrays: ReadArrays) => Promise<T>): Promise<T>;
  /**
   * Reads rows as arrays (see ReadArrays) inside the write transaction `trx`, on its own connection,
   * so that they see what the transaction has written so far.
   */
  arraysInWrite(trx: Transaction<Database>, query: CompiledQuery): Promise<unknown[][]>;
  /** Its batch statements (stock batches, feed inserts), each of a text parsed once (BatchStatements). */
  readonly batches: BatchStatements;
  /**
   * A turn of the event loop, for a write that goes on while statements it queued run
   * (StatementQueue): PostgreSQL's answers come over a socket and are taken only when the loop turns.
   * Absent on SQLite, whose statements run synchronously: a turn there would let other work (a loop
   * of reads, say) run inside the write's transaction, for nothing.
   */
  turn?(): Promise<void>;
  /**
   * Runs inside every writing transaction before its change notice is numbered, so that notices
   * commit in number order (PostgreSQL: a transaction advisory lock; SQLite writers are serial anyway).
   */
  beforeChange?(trx: Transaction<Database>): Promise<void>;
  /** Runs inside every writing transaction after its change notice is recorded (PostgreSQL: NOTIFY). */
  afterChange?(trx: Transaction<Database>): Promise<void>;
  /**
   * Runs first in every transaction that rewrites a dispensary's menu, so that two such transactions
   * take turns as they do on SQLite (PostgreSQL: the dispensary row FOR UPDATE; without it, two
   * concurrent full syncs would collide on the item keys instead of the last one winning).
   */
  lockDispensary?(trx: Transaction<Database>, dispensaryId: number): Promise<void>;
  /**
   * Runs the migrations so that processes starting together migrate one after the other (SQLite: Kysely
   * takes no migration lock there; PostgreSQL: Kysely's own lock is enough).
   */
  migrationLock?(migrate: () => Promise<void>): Promise<void>;
  /**
   * Calls onNotice when another process may have written, and after every reconnection; resolves to a
   * function that stops listening (PostgreSQL: LISTEN/NOTIFY). Without it, the change feed polls.
   */
  listen?(onNotice: () => void): Promise<() => Promise<void>>;
  /** Ends what the dialect runs beside its connection pool (listeners); the pool is closed after it. */
  close?(): Promise<void>;
}

/**
 * Runs a compiled select inside a read transaction and gives its rows as arrays of column values in
 * select order, as the driver returns them (no Kysely result plugins). Arrays cost about half as much
 * to build as row objects, which is most of the time of reading a large menu.
 */
export type ReadArrays = (query: CompiledQuery) => Promise<unknown[][]>;

/**
 * For a dialect's `readTransaction`: hands `work` a `readArrays` over `read` that refuses to run once
 * `work` has settled, when the transaction is over and a late query would run outside it.
 */
export async function withReadArrays<T>(
  read: ReadArrays,
  work: (readArrays: ReadArrays) => Promise<T>,
): Promise<T> {
  let open = true;
  try {
    return await work(async (query) => {
      if (!open) throw new Error('readArrays was called after its read transaction ended');
      return read(query);
    });
  } finally {
    open = false;
  }
}

/** What a chunked statement may bind besides its rows (a dispensary id, a time), with room to spare. */
const STATEMENT_OWN_PARAMETERS = 16;

/**
 * `rows` in slices small enough that a statement binding `parametersPerRow` values per row (plus a few
 * of its own) stays within the dialect's parameter limit, and at most 1,000 rows (the slice the menu
 * inserts have always used: a round trip per thousand rows is already a small part of their time).
 */
export function* chunks<T>(dialect: Dialect, rows: readonly T[], parametersPerRow: number): Generator<T[]> {
  const size = Math.max(
    1,
    Math.min(1_000, Math.floor((dialect.maxParameters - STATEMENT_OWN_PARAMETERS) / parametersPerRow)),
  );
  for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
}

/**
 * `ids` (none: no list) as the statements reading them bind them: one array parameter where the
 * dialect binds them so (BatchStatements.idList), one statement whatever their number; else chunks (see chunks()).
 */
export function* idLists(dialect: Dialect, ids: readonly number[]): Generator<IdList> {
  if (ids.length === 0) return;
  if (dialect.batches.idList) {
    yield dialect.batches.idList(ids);
    return;
  }
  for (const chunk of chunks(dialect, ids, 1)) yield { op: 'in', ids: chunk };
}
