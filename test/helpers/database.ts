import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Which database the suite runs on. Vitest's projects set TEST_DATABASE (see vitest.config.ts):
 * project "sqlite" runs every test file on SQLite, project "postgres" runs the same files on PostgreSQL.
 */
export type DatabaseKind = 'sqlite' | 'postgres';

export const DATABASE_KIND: DatabaseKind = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
export const onPostgres = DATABASE_KIND === 'postgres';
export const onSqlite = DATABASE_KIND === 'sqlite';

/** The server that per-test databases are created on (any database of it; `test` exists on our machines). */
export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const testPostgresUrl = (): string => process.env.TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;

/**
 * Databases of one `vitest run` share the prefix `menu_api_test_<run>_`, so its global teardown drops
 * any a crashed test file left behind. The run id starts with its start time (base 36 milliseconds,
 * then `x`), so that a later run can also drop what a killed run left behind (see staleTestDatabase).
 */
export const POSTGRES_DATABASE_PREFIX = 'menu_api_test_';
export const newRunId = (): string => `${Date.now().toString(36)}x${randomBytes(3).toString('hex')}`;
const processRunId = newRunId();
export const runPrefix = (): string =>
  `${POSTGRES_DATABASE_PREFIX}${(process.env.MENU_API_TEST_RUN ?? processRunId).replace(/[^a-z0-9]/g, '')}_`;

/** A test database of a run that started more than `hours` ago: no run lasts that long, so it was killed. */
export function staleTestDatabase(name: string, hours = 6): boolean {
  const match = /^menu_api_test_([0-9a-z]+)x[0-9a-f]+_[0-9a-f]+$/.exec(name);
  if (!match) return false;
  const started = Number.parseInt(match[1]!, 36);
  return Number.isFinite(started) && Date.now() - started > hours * 3_600_000;
}

export interface TestDatabase {
  kind: DatabaseKind;
  /** What `--db`, DATABASE_URL and ServerConfig.database take: a file path or a postgres:// URL. */
  address: string;
  /** Drops the database (PostgreSQL) or removes its folder (SQLite). */
  cleanup(): Promise<void>;
}

/**
 * A fresh, empty database of the kind this project runs on (or the kind asked for). SQLite: a file in
 * a new temporary folder. PostgreSQL: a database `menu_api_test_<run>_<random>` on TEST_POSTGRES_URL's
 * server, made for this test file; `cleanup()` hands it back, emptied, to the next testDatabase() of
 * the same file (CREATE DATABASE costs a second on a busy machine; TRUNCATE does not), and the file's
 * databases are dropped when the file ends (test/setup/postgres-file.ts). It may already be migrated,
 * but it holds no rows and its ids start at 1.
 */
export async function testDatabase(kind: DatabaseKind = DATABASE_KIND): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'menu-api-test-'));
    return {
      kind,
      address: join(folder, 'menu.db'),
      cleanup: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  const name = await acquirePostgresDatabase();
  const url = new URL(testPostgresUrl());
  url.pathname = `/${name}`;
  let released = false;
  return {
    kind,
    address: url.toString(),
    cleanup: async () => {
      if (released) return;
      released = true;
      idleDatabases.push(name);
    },
  };
}

/** This file's PostgreSQL databases: every one made, and those free for the next testDatabase(). */
const fileDatabases = new Set<string>();
const idleDatabases: string[] = [];

async function acquirePostgresDatabase(): Promise<string> {
  const reused = idleDatabases.pop();
  if (reused) {
    await emptyDatabase(reused);
    return reused;
  }
  const name = `${runPrefix()}${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  fileDatabases.add(name);
  return name;
}

/** Removes every row, and restarts every id sequence, of every table but the migration records. */
async function emptyDatabase(name: string): Promise<void> {
  const url = new URL(testPostgresUrl());
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `select tablename as name from pg_tables
       where schemaname = current_schema() and tablename not like 'schema_migrations%'`,
    );
    if (rows.length === 0) return;
    const tables = rows.map((row) => pg.escapeIdentifier(row.name)).join(', ');
    await client.query(`TRUNCATE ${tables} RESTART IDENTITY CASCADE`);
  } finally {
    await client.end();
  }
}

/** Drops every database this file made (run after each file by test/setup/postgres-file.ts). */
export async function dropFileDatabases(): Promise<void> {
  const names = [...fileDatabases];
  fileDatabases.clear();
  idleDatabases.length = 0;
  for (const name of names) await dropDatabase(name);
}

export async function dropDatabase(name: string): Promise<void> {
  // FORCE ends connections a test left open (a killed server process, say).
  await adminQuery(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
}

/** One statement on a short-lived connection to TEST_POSTGRES_URL (CREATE/DROP DATABASE cannot run in a pool's transaction). */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: testPostgresUrl(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The PostgreSQL server an address names, as a TCP proxy in front of it needs it. */
export function serverOf(address: string): { host: string; port: number } {
  const url = new URL(address);
  return { host: url.hostname, port: Number(url.port || 5432) };
}

/** The same address with another port: for pointing a server at a proxy in front of PostgreSQL. */
export function withPort(address: string, port: number): string {
  const url = new URL(address);
  url.port = String(port);
  return url.toString();
}
