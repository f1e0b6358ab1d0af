import type { TestProject } from 'vitest/node';
import { adminQuery, dropDatabase, runPrefix, testPostgresUrl } from '../helpers/database.js';
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
  return async () => {
    const prefix = runPrefix();
    const rows = await adminQuery<{ datname: string }>(
      'select datname from pg_database where starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of rows) await dropDatabase(datname);
  };
}
