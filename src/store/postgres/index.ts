import { setImmediate } from 'node:timers/promises';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { DEFAULT_POOL_SIZE } from '../../config.js';
import { redactUrl } from '../address.js';
import { createStore, type KyselyStore } from '../create.js';
import { type Dialect, type ReadArrays, withReadArrays } from '../dialect.js';
import type { Database } from '../schema.js';
import { postgresBatches } from './batches.js';
import { ChangeListener, type ListenerOptions } from './listener.js';

/** The NOTIFY channel every writing transaction signals on commit. */
export const CHANGE_CHANNEL = 'menu_api_changes';

/**
 * Key of the transaction-level advisory lock that orders change notices: with it, the `changes`
 * sequence numbers commit in the order they are drawn, so a reader that has seen number N can never
 * later find a smaller one (without it, two concurrent writers could commit out of order and a
 * process polling `seq > N` would skip the slower one for ever).
 */
const CHANGE_LOCK_KEY = 7_304_911_223;

/** PostgreSQL's wire protocol allows 65,535 bound parameters per statement. */
const MAX_PARAMETERS = 65_535;

export interface PostgresOptions {
  /** Largest number of connections this process opens for queries (LISTEN uses one more). */
  poolSize?: number;
  /** How long a query waits for a connection before it fails (and the request gets 503), ms. */
  connectTimeoutMs?: number;
}

const INT8 = 20;
const NUMERIC = 1700;

/**
 * Counts and sums come back as int8/numeric, which node-postgres leaves as strings. Every number this
 * service stores (ids, cents, counts) is far below 2^53, so they are parsed to JS numbers here, for
 * this pool only (the global pg type registry is left alone).
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Runs `work` in a read-only REPEATABLE READ transaction (READ COMMITTED, the default, would give each
 * statement a snapshot of its own; a read-only REPEATABLE READ transaction never fails with a
 * serialization error). On a client of the pool taken here rather than through Kysely, whose
 * transactions give no way to ask pg for rows as arrays (`rowMode: 'array'`).
 */
async function readTransaction<T>(pool: pg.Pool, work: (readArrays: ReadArrays) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const readArrays: ReadArrays = async (query) => {
    const result = await client.query<unknown[]>({
      text: query.sql,
      values: [...query.parameters],
      rowMode: 'array',
    });
    return result.rows;
  };
  try {
    await client.query('start transaction isolation level repeatable read read only');
    const result = await withReadArrays(readArrays, work);
    await client.query('commit');
    client.release();
    return result;
  } catch (error) {
    try {
      await client.query('rollback');
      client.release();
    } catch {
      // The connection is broken or in an unknown state: the pool closes it instead of reusing it.
      client.release(true);
    }
    throw error;
  }
}

/** Starts the text of a statement whose rows a pool client gives as arrays (giveArraysWhenAsked): a comment, to PostgreSQL. */
const ARRAY_ROWS = '/* rows as arrays */ ';

/**
 * Makes a pool client give a statement's rows as arrays (pg's `rowMode: 'array'`) when its text starts
 * with ARRAY_ROWS. Kysely runs a transaction's statements on one client through `query(text, values)`,
 * which has no way to ask for arrays; with this, the reads inside a write (`arraysInWrite`) take their
 * rows as arrays on the transaction's own connection, as `readTransaction` does on a client of its own.
 * Building a row object per row and taking it apart again was a third of the time a stock batch of
 * thousands of entries spent reading back the items it changed (bench/PROFILE.md, round ten).
 */
function giveArraysWhenAsked(client: pg.PoolClient): void {
  // pg's overloads of `query` cannot be restated here: every other call is passed on as it was made.
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    return typeof text === 'string' && text.startsWith(ARRAY_ROWS)
      ? query({ text, values, rowMode: 'array' })
      : query(...args);
  }) as pg.PoolClient['query'];
}

/** PostgreSQL's part of the store: its locks, NOTIFY on every change, and LISTEN for other processes' changes. */
function postgresDialect(
  db: Kysely<Database>,
  pool: pg.Pool,
  poolSize: number,
  listenerOptions: Omit<ListenerOptions, 'channel'>,
  location: string,
): Dialect {
  const listeners = new Set<ChangeListener>();
  return {
    db,
    location,
    maxParameters: MAX_PARAMETERS,
    // Writes waiting for a dispensary's row lock or the change lock hold their connection meanwhile:
    // however many queue up, half the pool stays for reads (which never wait for a lock).
    writeSlots: Math.max(1, Math.floor(poolSize / 2)),
    // As long as a write waited for a pooled connection before it took turns: it still fails fast.
    writeWaitMs: listenerOptions.connectTimeoutMs,
    skipLocked: true,
    batches: postgresBatches,
    turn: () => setImmediate(),
    isUniqueViolation: (error) =>
      typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505',
    // PostgreSQL text cannot hold NUL, so no stored value contains one.
    canStoreText: (value) => !value.includes('\0'),
    beforeChange: async (trx) => {
      await sql`select pg_advisory_xact_lock(${sql.lit(CHANGE_LOCK_KEY)})`.execute(trx);
    },
    lockDispensary: async (trx, dispensaryId) => {
      await sql`select 1 from dispensaries where id = ${dispensaryId} for update`.execute(trx);
    },
    readTransaction: (work) => readTransaction(pool, work),
    arraysInWrite: async (trx, query) => {
      const result = await trx.executeQuery<unknown[]>(
        CompiledQuery.raw(ARRAY_ROWS + query.sql, [...query.parameters]),
      );
      return result.rows;
    },
    afterChange: async (trx) => {
      // Delivered to every listening process when (and only if) this transaction commits.
      await sql`select pg_notify(${CHANGE_CHANNEL}, (select max(seq) from changes)::text)`.execute(trx);
    },
    // Calls onNotice on every change notice, and once after each (re)connection to catch up.
    listen: async (onNotice) => {
      const listener = new ChangeListener({ ...listenerOptions, channel: CHANGE_CHANNEL }, onNotice);
      listeners.add(listener);
      await listener.start();
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    close: async () => {
      const stopping = [...listeners];
      listeners.clear();
      await Promise.all(stopping.map((listener) => listener.stop()));
    },
  };
}

export function openPostgresStore(url: string, options: PostgresOptions = {}): KyselyStore {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'menu-api',
    types,
  });
  // An idle connection that dies (a restart, a failover) is dropped by the pool, which opens a fresh
  // one on the next query. Without a listener the 'error' event would end the process.
  pool.on('error', () => {});
  // A connection can also die while it is checked out between two statements of a transaction; the
  // statement that follows fails (and the request gets 503), but the client's own 'error' event must
  // not end the process. The pool discards such a client when it is released. Every client can also
  // give rows as arrays (arraysInWrite).
  pool.on('connect', (client) => {
    client.on('error', () => {});
    giveArraysWhenAsked(client);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return createStore(
    postgresDialect(
      db,
      pool,
      poolSize,
      { connectionString: url, connectTimeoutMs, applicationName: 'menu-api-listen' },
      redactUrl(url),
    ),
  );
}
