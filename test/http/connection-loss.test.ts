import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS, type ServerConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { openStore } from '../../src/store/open.js';
import { onPostgres, type TestDatabase, testDatabase, withPort } from '../helpers/database.js';
import { expectError, formBHeaders } from '../helpers/http.js';
import { SAMPLE_MENU, type Seed, seedRuntime, TEST_SCRYPT } from '../helpers/runtime.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

/** Asks until the answer satisfies the check, or fails after the timeout with the last answer. */
async function eventually<T>(
  ask: () => Promise<T>,
  check: (answer: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await ask();
    if (check(answer)) return answer;
    if (Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Proxied {
  database: TestDatabase;
  runtime: Runtime;
  /** Every PostgreSQL connection of the runtime goes through it: the test closes and reopens it. */
  proxy: TcpProxy;
  seed: Seed;
}

/**
 * For the enclosing describe: a runtime over a database of its own, whose PostgreSQL connections all
 * go through a proxy, ready once its beforeAll has run; all of it is closed after.
 */
function useProxiedRuntime(config: Partial<ServerConfig>): Proxied {
  // Filled in by beforeAll; the cases only run after it.
  const proxied = {} as Proxied;
  beforeAll(async () => {
    const database = await testDatabase();
    const direct = new URL(database.address);
    const proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
    const runtime = await createRuntime(
      { ...DEFAULTS, database: withPort(database.address, proxy.port), databasePoolSize: 3, ...config },
      { logger: false, scryptCost: TEST_SCRYPT },
    );
    const seed = await seedRuntime(
      runtime,
      { dispensary: 'Proxied Collective', username: 'proxied' },
      SAMPLE_MENU,
    );
    Object.assign(proxied, { database, runtime, proxy, seed });
  });
  afterAll(async () => {
    await proxied.proxy?.open();
    await proxied.runtime?.close();
    await proxied.proxy?.close();
    await proxied.database?.cleanup();
  });
  return proxied;
}

describe.skipIf(!onPostgres)('PostgreSQL connection loss', () => {
  const proxied = useProxiedRuntime({ changePollMs: 100 });

  const menu = () =>
    proxied.runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(proxied.seed) });
  const ready = () => proxied.runtime.app.inject({ method: 'GET', url: '/readyz' });

  it('answers 503 with Retry-After while the database is away, and recovers by itself when it returns', async () => {
    expect((await menu()).statusCode).toBe(200);
    expect((await ready()).json()).toEqual({ status: 'ready' });

    await proxied.proxy.close();
    // Even the cached menu is not served: the change feed cannot tell whether it is still current.
    const down = await eventually(menu, (response) => response.statusCode === 503, 5_000);
    const error = expectError(down, 503, 'unavailable');
    expect(error.message).toBe('The database is unreachable right now. Retry in a few seconds.');
    expect(down.headers['retry-after']).toBe('2');
    expect(down.body).not.toContain(proxied.seed.password);
    // Over real HTTP too, where a plain read would take the read lane: it steps aside for the 503.
    const url = await proxied.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const overHttp = await fetch(`${url}/menu`, { headers: formBHeaders(proxied.seed) });
    expect(overHttp.status).toBe(503);
    expect(overHttp.headers.get('retry-after')).toBe('2');

    const notReady = await ready();
    expectError(notReady, 503, 'unavailable');
    expect(notReady.headers['retry-after']).toBe('2');
    expect(notReady.json().error.message).toBe('Not ready: the database does not answer.');
    const alive = await proxied.runtime.app.inject({ method: 'GET', url: '/healthz' });
    expect(alive.statusCode).toBe(200);
    expect(alive.json()).toEqual({ status: 'ok' });
    // Metrics report on the outage too (their route declares needsDatabase: false); an unknown path does not.
    const metrics = await proxied.runtime.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('menu_api_database_up 0');
    expectError(
      await proxied.runtime.app.inject({ method: 'GET', url: '/no-such-path' }),
      503,
      'unavailable',
    );
    // Form A and unknown credentials get the same 503, never a 500 or a wrong 401.
    const formA = await proxied.runtime.app.inject({
      method: 'POST',
      url: '/menu',
      payload: { username: 'someone', password: 'x', collective_token: 'y' },
    });
    expectError(formA, 503, 'unavailable');

    await proxied.proxy.open();
    const back = await eventually(ready, (response) => response.statusCode === 200, 10_000);
    expect(back.json()).toEqual({ status: 'ready' });
    const served = await eventually(menu, (response) => response.statusCode === 200, 5_000);
    expect(served.json().map((item: { id: number }) => item.id)).toEqual([1, 3, 7]);
  });

  it('a request that reaches a dead pooled connection gets 503, not 500', async () => {
    expect((await menu()).statusCode).toBe(200);
    await proxied.proxy.close();
    // A cold path: an unknown token is not cached, so this goes to the database at once.
    const response = await proxied.runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: { ...formBHeaders(proxied.seed), store: 'not-a-known-token' },
    });
    expectError(response, 503, 'unavailable');
    await proxied.proxy.open();
    await eventually(menu, (answer) => answer.statusCode === 200, 10_000);
  });
});

describe.skipIf(!onPostgres)('PostgreSQL change notices (LISTEN/NOTIFY)', () => {
  // Polling every minute: whatever arrives within a second arrived by NOTIFY.
  const proxied = useProxiedRuntime({ changePollMs: 60_000 });

  const activeIds = async () => {
    const response = await proxied.runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: formBHeaders(proxied.seed),
    });
    return response.statusCode === 200
      ? response
          .json()
          .map((item: { id: number }) => item.id)
          .join()
      : '';
  };

  it('drops a cached menu within a second of another process writing, without polling', async () => {
    expect(await activeIds()).toBe('1,3,7');
    const other = await openStore(proxied.database.address);
    try {
      await other.menus.setItemActive(proxied.seed.dispensaryId, 3, false);
      const started = Date.now();
      expect(await eventually(activeIds, (ids) => ids === '1,7', 1_000)).toBe('1,7');
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await other.close();
    }
  });

  it('reconnects LISTEN after losing it and catches up on what was written meanwhile', async () => {
    expect(await activeIds()).toBe('1,7');
    await proxied.proxy.close();
    const other = await openStore(proxied.database.address);
    try {
      // Written while this process cannot hear: its notice is lost, the catch-up read finds it.
      await other.menus.setItemActive(proxied.seed.dispensaryId, 3, true);
    } finally {
      await other.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxied.proxy.open();
    expect(await eventually(activeIds, (ids) => ids === '1,3,7', 10_000)).toBe('1,3,7');
  });
});
