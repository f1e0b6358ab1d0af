import { randomBytes } from 'node:crypto';
import { configDefaults, defineConfig } from 'vitest/config';
import type { Reporter } from 'vitest/reporters';
import { postgresProblem } from './test/setup/postgres-probe.js';

const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Test files whose subject is storage, so they prove each database: the store contract suite, the
 * services that own a transaction or cross databases, PostgreSQL's connection handling, and the
 * end-to-end tests whose processes share one database (changes seen by the other process, claims,
 * deliveries and feeds that survive a kill, a connection cut, a close at shutdown, a
 * paging that lists each item once while another client writes), and people's
 * accounts over HTTP (invitations, links, sessions, password changes and single sign-on each write
 * the account, its sessions and the audit log in one transaction). Everything else
 * (HTTP, forms, CLI, domain) runs on SQLite only: it goes through the same repositories, which the
 * contract suite has proved on both. So do the end-to-end files whose subject is not the database:
 * examples/ and the README run as an integrator runs them (examples.e2e, readme.e2e), one point of
 * sale's path over HTTP (pos-sync.e2e: its full sync and stock batch are proved on both by the store
 * contract and menu-import suites, and through a process by shutdown and webhooks), the cluster's
 * process management (workers.e2e).
 */
export const BOTH_DATABASES = [
  'test/store/**/*.test.ts',
  'test/services/change-feed.test.ts',
  'test/services/live-hub.test.ts',
  'test/services/menu-snapshots-store.test.ts',
  'test/services/menu-snapshots-refresh.test.ts',
  'test/services/db-copy.test.ts',
  'test/services/menu-import.test.ts',
  'test/services/rich-item.test.ts',
  'test/services/external-ids.test.ts',
  'test/services/special-scheduler.test.ts',
  'test/services/published-menus-patch.test.ts',
  'test/http/connection-loss.test.ts',
  'test/http/slow-reader.test.ts',
  'test/http/console/account-sessions.test.ts',
  'test/http/console/sso.test.ts',
  'test/e2e/idempotency.e2e.test.ts',
  'test/e2e/kill-during-stream.e2e.test.ts',
  'test/e2e/live.e2e.test.ts',
  'test/e2e/patched-snapshot.e2e.test.ts',
  'test/e2e/postgres-cut.e2e.test.ts',
  'test/e2e/rolling-restart.e2e.test.ts',
  'test/e2e/serve.e2e.test.ts',
  'test/e2e/specials.e2e.test.ts',
  'test/e2e/two-servers.e2e.test.ts',
  'test/e2e/v1-paging.e2e.test.ts',
  'test/e2e/webhooks-processes.e2e.test.ts',
  'test/e2e/webhooks.e2e.test.ts',
  'test/e2e/shutdown.test.ts',
];

/**
 * Lighthouse's performance score is computed from the main-thread tasks it times in the page, taken
 * four times over (its simulated mid-range phone). On a busy machine those tasks take longer, and the
 * score falls: 0.92 at a load of 13 on two cores, against 1.0 when the load was 6. In `npm test` the
 * busy neighbour is the other worker's test file, so this file runs alone, after all the others, once.
 */
const ALONE_AT_THE_END = ['test/e2e/lighthouse.browser.test.ts'];

/**
 * Project "sqlite" runs every test file but ALONE_AT_THE_END (project "alone" runs those afterwards,
 * on SQLite); project "postgres" runs BOTH_DATABASES again on PostgreSQL
 * (TEST_DATABASE tells the helpers which; see test/helpers/database.ts). PostgreSQL is
 * TEST_POSTGRES_URL, by default the local server. When it is unreachable: under CI (CI set) the
 * postgres project stays and its global setup fails the run; elsewhere the project is left out and
 * the run says so, first and last.
 */
export default defineConfig(async () => {
  const postgresUrl = process.env.TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;
  // One id per run, inherited by the workers: per-test databases are named after it.
  // (Its start time first: see test/helpers/database.ts.)
  process.env.MENU_API_TEST_RUN ??= `${Date.now().toString(36)}x${randomBytes(3).toString('hex')}`;
  const ci = Boolean(process.env.CI) && process.env.CI !== 'false';
  const problem = await postgresProblem(postgresUrl);
  const skipPostgres = problem !== undefined && !ci;
  const notice = `PostgreSQL run skipped: ${problem}. Only the SQLite project ran. Start PostgreSQL (or set TEST_POSTGRES_URL) to run both.`;
  // The config may be loaded more than once per run: say it once at the start (and once at the end).
  if (skipPostgres && !process.env.MENU_API_TEST_SKIP_SAID) {
    process.env.MENU_API_TEST_SKIP_SAID = '1';
    process.stderr.write(`\n${notice}\n\n`);
  }
  const skipReporter: Reporter = {
    onTestRunEnd() {
      process.stderr.write(`\n${notice}\n`);
    },
  };

  return {
    test: {
      // Forks keep native better-sqlite3 handles in processes of their own. Three at once on two cores:
      // most of a file's time is spent waiting on the servers, browsers and CLI processes it starts, so
      // two workers left the cores idle a third of the run (on the 2-core VM, Vitest took 308 s with two
      // workers, 265 s with three, 248 s with four, on the suite of 2026-11-27 before the richer item).
      // Four no longer pay: on the suite of 2026-11-29 (2,720 tests) Vitest took 333 s with three
      // and 355 s with four, the files' summed time rising from 897 s to 1,292 s as they contend.
      pool: 'forks',
      maxWorkers: 3,
      // A worker keeps its loaded modules from one file to the next: importing the app anew for each of
      // ~85 files cost about a minute of CPU. Nothing the tests use keeps state in a module (metrics are
      // per app, databases and ports per test), so a file cannot see another's.
      isolate: false,
      testTimeout: 20_000,
      hookTimeout: 30_000,
      // The contract test: every answer of a test app is checked against the OpenAPI document.
      setupFiles: ['test/setup/contract.ts'],
      reporters: skipPostgres ? ['default', skipReporter] : ['default'],
      projects: [
        // Each project names its own files: with `extends`, a root `include` would be added to these.
        {
          extends: true,
          test: {
            name: 'sqlite',
            include: ['test/**/*.test.ts'],
            exclude: [...configDefaults.exclude, ...ALONE_AT_THE_END],
            env: { TEST_DATABASE: 'sqlite' },
          },
        },
        {
          extends: true,
          test: {
            name: 'alone',
            include: ALONE_AT_THE_END,
            env: { TEST_DATABASE: 'sqlite' },
            // Groups run one after another, lowest first; the others are group 0.
            sequence: { groupOrder: 1 },
            maxWorkers: 1,
          },
        },
        ...(skipPostgres
          ? []
          : [
              {
                extends: true,
                test: {
                  name: 'postgres',
                  include: BOTH_DATABASES,
                  env: { TEST_DATABASE: 'postgres', TEST_POSTGRES_URL: postgresUrl },
                  globalSetup: ['test/setup/postgres-global.ts'],
                  setupFiles: ['test/setup/postgres-file.ts'],
                },
              },
            ]),
      ],
    },
  };
});
