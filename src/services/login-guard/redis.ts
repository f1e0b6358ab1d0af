import type { SharedRedis } from '../../infra/redis.js';
import type { LoginAttempt, LoginGuard, LoginGuardLimits, LoginVerdict } from './login-guard.js';
import { countersOf, verdictOf } from './login-guard.js';
import { MemoryLoginGuard } from './memory.js';

/** Each counter's count and the ms until it expires, in one round trip. */
const READ = `
local result = {}
for index, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key)) or 0
  local ttl = redis.call('PTTL', key)
  result[index * 2 - 1] = count
  result[index * 2] = ttl
end
return result
`;

/** Counts a failure on every counter; a new counter lives for the window from its first failure. */
const FAIL = `
local window = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 or redis.call('PTTL', key) < 0 then
    redis.call('PEXPIRE', key, window)
  end
end
return 0
`;

/**
 * Failure counters in Redis, shared by every process. While Redis is unreachable the counters of this
 * process's memory are used instead.
 */
export class RedisLoginGuard implements LoginGuard {
  private readonly fallback: MemoryLoginGuard;

  constructor(
    private readonly redis: SharedRedis,
    private readonly limits: LoginGuardLimits,
    private readonly prefix = 'menu-api:',
  ) {
    this.fallback = new MemoryLoginGuard(limits);
  }

  async check(attempt: LoginAttempt): Promise<LoginVerdict> {
    const counters = countersOf(attempt, this.limits);
    if (counters.length === 0) return verdictOf([], []);
    if (!this.redis.usable) return this.fallback.check(attempt);
    try {
      const flat = (await this.redis.script(READ, this.keys(counters), [])) as number[];
      return verdictOf(
        counters,
        counters.map((_, index) => ({ count: Number(flat[index * 2]), ttlMs: Number(flat[index * 2 + 1]) })),
      );
    } catch (error) {
      this.redis.failed(error);
      return this.fallback.check(attempt);
    }
  }

  async failed(attempt: LoginAttempt): Promise<void> {
    const counters = countersOf(attempt, this.limits);
    if (counters.length === 0) return;
    if (!this.redis.usable) return this.fallback.failedNow(attempt);
    try {
      await this.redis.script(FAIL, this.keys(counters), [this.limits.windowMs]);
    } catch (error) {
      this.redis.failed(error);
      this.fallback.failedNow(attempt);
    }
  }

  async succeeded(attempt: LoginAttempt): Promise<void> {
    const pair = countersOf(attempt, this.limits).filter((counter) => counter.kind === 'pair');
    if (pair.length === 0) return;
    this.fallback.succeededNow(attempt);
    if (!this.redis.usable) return;
    try {
      await this.redis.client.del(...this.keys(pair));
    } catch (error) {
      this.redis.failed(error);
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
  }

  private keys(counters: { key: string }[]): string[] {
    return counters.map(({ key }) => `${this.prefix}lg:${key}`);
  }
}
