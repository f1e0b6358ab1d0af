import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, commandJson, type ServerProcess, startServe } from '../helpers/cli.js';
import { formBHeaders } from '../helpers/http.js';
import { freePort, Load, send, waitForExit } from '../helpers/process.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';
import { until } from '../helpers/wait.js';

/** A Redis server of this test's own (never the shared one on 6379), in memory only. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await until(
      async () => {
        try {
          if (client.status !== 'ready') await client.connect();
          return (await client.ping()) === 'PONG';
        } catch {
          client.disconnect();
          return false;
        }
      },
      10_000,
      `redis-server on ${port}`,
    );
  } finally {
    client.disconnect();
  }
  return child;
}

/**
 * Redis, where the rate limits live, stops and starts again while the server is under load: every
 * request is still answered (limits fall back to memory meanwhile), and once Redis is back the limits
 * are kept in it again.
 */
describe('Redis stopped and started under load', () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let redis: ChildProcess | undefined;
  let port: number;
  const prefix = `outage-${Math.random().toString(36).slice(2, 8)}:`;

  beforeAll(async () => {
    assertBuilt();
    database = await testDatabase('sqlite');
    port = await freePort();
    redis = await startRedis(port);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    if (redis && redis.exitCode === null) {
      redis.kill('SIGTERM');
      await waitForExit(redis);
    }
    await database?.cleanup();
  });

  it('keeps serving while Redis is away, and keeps the limits in Redis again once it is back', {
    timeout: 60_000,
  }, async () => {
    const dispensary = await commandJson<{ id: number; token: string }>(database.address, [
      'dispensary',
      'create',
      '--name',
      'Redis Outage',
    ]);
    const credential = await commandJson<{ username: string; password: string }>(database.address, [
      'credential',
      'issue',
      '--username',
      'outage',
    ]);
    server = await startServe(database.address, [
      '--redis-url',
      `redis://127.0.0.1:${port}`,
      '--redis-prefix',
      prefix,
      // Limits far above this load: the point is where they are kept, not that they refuse.
      '--rate-limit-credential',
      '100000,100000',
      '--rate-limit-address',
      '100000,100000',
    ]);
    const headers = formBHeaders({ token: dispensary.token, ...credential });
    let answered = 0;
    const load = new Load(10);
    for (let reader = 0; reader < 3; reader++) {
      load.add(() => ({
        label: '',
        send: () => send(`${server!.url}/menu`, { headers, timeoutMs: 20_000 }),
        answered: () => answered++,
      }));
    }
    const keysInRedis = async () => {
      const client = new Redis({ port, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => {});
      try {
        return (await client.keys(`${prefix}*`)).length;
      } catch {
        return 0;
      } finally {
        client.disconnect();
      }
    };
    try {
      await until(async () => (await keysInRedis()) > 0, 10_000, 'rate-limit keys in Redis');

      const before = answered;
      redis!.kill('SIGTERM');
      await waitForExit(redis!);
      // Under load without Redis for a while: limits in memory, every request answered.
      await until(() => answered > before + 30, 20_000, 'answers while Redis is away');

      // A new redis-server with no persistence starts empty: keys in it are the server's, written
      // after it reconnected (requests keep coming, so there is no moment to see it empty).
      redis = await startRedis(port);
      await until(async () => (await keysInRedis()) > 0, 20_000, 'rate-limit keys in the restarted Redis');
    } finally {
      await load.stop();
    }
    expect(load.failures).toEqual([]);
    expect(answered).toBeGreaterThan(30);
  });
});
