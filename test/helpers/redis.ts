import { randomBytes } from 'node:crypto';
import { afterAll, expect } from 'vitest';
import { SharedRedis } from '../../src/infra/redis.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Redis for one test file: a prefix of its own (each run, and each of the two test projects, counts
 * under keys of its own), and connections that are closed when the file ends, after the keys under
 * the prefix are removed.
 */
export function testRedis() {
  const prefix = `menu-api-test:${randomBytes(6).toString('hex')}:`;
  const opened: SharedRedis[] = [];
  /** Closes `redis` when the file ends. */
  const closeAtEnd = (redis: SharedRedis): SharedRedis => {
    opened.push(redis);
    return redis;
  };
  /** A connection to Redis, which must be running. */
  const connect = async (): Promise<SharedRedis> => {
    const redis = closeAtEnd(new SharedRedis(REDIS_URL, { warn: () => {}, info: () => {} }));
    expect(await redis.connected(3_000), `Redis at ${REDIS_URL} must be running for these tests`).toBe(true);
    return redis;
  };
  afterAll(async () => {
    const cleaner = await connect();
    const keys = await cleaner.client.keys(`${prefix}*`);
    if (keys.length > 0) await cleaner.client.del(...keys);
    for (const redis of opened) await redis.close();
  });
  return { prefix, connect, closeAtEnd };
}
