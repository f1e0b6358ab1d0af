import type { SharedRedis } from '../redis.js';
import { MemoryRateLimiter } from './memory.js';
import type { RateLimiter } from './rate-limiter.js';
import { RedisRateLimiter } from './redis.js';

export { MemoryRateLimiter } from './memory.js';
export * from './rate-limiter.js';
export { RedisRateLimiter } from './redis.js';

/** In Redis when there is one (every process shares the buckets), else in memory. */
export function createRateLimiter(redis?: SharedRedis, prefix?: string): RateLimiter {
  return redis ? new RedisRateLimiter(redis, prefix) : new MemoryRateLimiter();
}
