import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_MIGRATION } from '../../src/store/migrations/index.js';
import { openKyselyStore } from '../../src/store/open.js';
import { expectError } from '../helpers/http.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

describe('/healthz and /readyz', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime();
  });
  afterAll(() => runtime.close());

  it('/healthz answers 200 {"status":"ok"} with a request id, without credentials', async () => {
    const response = await runtime.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(response.json()).toEqual({ status: 'ok' });
    expect((await runtime.app.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200);
  });

  it('/readyz answers 200 {"status":"ready"} when the database answers and is migrated', async () => {
    const response = await runtime.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready' });
  });

  it('a wrong method gets 405 with Allow, like every other path', async () => {
    const response = await runtime.app.inject({ method: 'POST', url: '/readyz' });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('GET, HEAD');
  });

  it('/readyz answers 503 naming the migration that has not run, and 200 again once it has', async () => {
    const store = await openKyselyStore(runtime.database);
    try {
      const db = store.database as unknown as import('kysely').Kysely<Record<string, { name: string }>>;
      const row = await db
        .selectFrom('schema_migrations')
        .selectAll()
        .where('name', '=', LATEST_MIGRATION)
        .executeTakeFirstOrThrow();
      await db.deleteFrom('schema_migrations').where('name', '=', LATEST_MIGRATION).execute();
      const response = await runtime.app.inject({ method: 'GET', url: '/readyz' });
      const error = expectError(response, 503, 'unavailable');
      expect(error.message).toBe(`Not ready: migrations not applied: ${LATEST_MIGRATION}.`);
      expect(response.headers['retry-after']).toBe('2');
      await db.insertInto('schema_migrations').values(row).execute();
      expect((await runtime.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await store.close();
    }
  });
});
