import type { TestProject } from 'vitest/node';
import {
  adminQuery,
  dropDatabase,
  POSTGRES_DATABASE_PREFIX,
  runPrefix,
  staleTestDatabase,
  testPostgresUrl,
} from '../helpers/database.js';
import { postgresProblem } from './postgres-probe.js';

/**
 * Global setup of the "postgres" project. vitest.config.ts leaves the project out when PostgreSQL is
 * unreachable outside CI; under CI it keeps it, and this setup fails the run, loudly, instead.
 * The teardown drops whatever per-test databases of this run a crashed test left behind.
 */
export default async function setup(_project: TestProject): Promise<() => Promise<void>> {
  const problem = await postgresProblem(testPostgresUrl());
  if (problem) {
    throw new Error(
      `PostgreSQL run failed: ${problem}. CI is set, so an unreachable PostgreSQL fails the run instead of skipping it. Start PostgreSQL or set TEST_POSTGRES_URL.`,
    );
  }
  // What runs killed hours ago left behind (a run that is merely concurrent is never that old).
  for (const name of await testDatabaseNames()) if (staleTestDatabase(name)) await dropDatabase(name);
  return async () => {
    const prefix = runPrefix();
    for (const name of await testDatabaseNames()) if (name.startsWith(prefix)) await dropDatabase(name);
  };
}

async function testDatabaseNames(): Promise<string[]> {
  const rows = await adminQuery<{ datname: string }>(
    'select datname from pg_database where starts_with(datname, $1)',
    [POSTGRES_DATABASE_PREFIX],
  );
  return rows.map((row) => row.datname);
}
