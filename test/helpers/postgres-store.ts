import pg from 'pg';
import type { KyselyStore } from '../../src/store/create.js';
import { openPostgresStore, type PostgresOptions } from '../../src/store/postgres/index.js';
import { type TestDatabase, testDatabase } from './database.js';

/** A migrated PostgreSQL store of a fresh test database, and another session of it beside the store's. */
export interface PostgresStoreFixture {
  store: KyselyStore;
  /** A plain connection of its own: what another process would do (hold locks, read statistics). */
  session: pg.Client;
  close(): Promise<void>;
}

/** For store tests that watch or hold up the store's PostgreSQL connections from outside. */
export async function postgresStoreFixture(options: PostgresOptions): Promise<PostgresStoreFixture> {
  const database: TestDatabase = await testDatabase('postgres');
  const store = openPostgresStore(database.address, options);
  await store.migrate();
  const session = new pg.Client({ connectionString: database.address });
  await session.connect();
  return {
    store,
    session,
    async close() {
      await session.end();
      await store.close();
      await database.cleanup();
    },
  };
}
