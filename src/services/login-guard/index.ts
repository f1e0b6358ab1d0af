import type { SharedRedis } from '../../infra/redis.js';
import type { LoginGuard, LoginGuardLimits } from './login-guard.js';
import { MemoryLoginGuard } from './memory.js';
import { RedisLoginGuard } from './redis.js';

export * from './login-guard.js';
export { MemoryLoginGuard } from './memory.js';
export { RedisLoginGuard } from './redis.js';

/** In Redis when there is one (every process shares the counters), else in memory. */
export function createLoginGuard(limits: LoginGuardLimits, redis?: SharedRedis, prefix?: string): LoginGuard {
  return redis ? new RedisLoginGuard(redis, limits, prefix) : new MemoryLoginGuard(limits);
}
