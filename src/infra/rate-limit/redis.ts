import type { SharedRedis } from '../redis.js';
import { MemoryRateLimiter } from './memory.js';
import { type BucketPolicy, decide, type RateDecision, type RateLimiter } from './rate-limiter.js';

/**
 * One atomic step of a token bucket, on Redis's clock so that every process agrees. The bucket is a
 * hash {tokens, at}; it expires once it would be full again, so idle keys cost nothing.
 * Returns {allowed (0/1), tokens as a string} (Lua numbers would be truncated to integers).
 */
const TAKE = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
if tokens == nil then
  tokens = burst
else
  local elapsed = math.max(0, now - (tonumber(state[2]) or now))
  tokens = math.min(burst, tokens + elapsed * rate / 1000)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

/**
 * Buckets in Redis, shared by every process. While Redis is unreachable the buckets of this process's
 * memory are used instead (see SharedRedis); requests are never refused or delayed for Redis's sake.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly fallback = new MemoryRateLimiter();

  constructor(
    private readonly redis: SharedRedis,
    /** Prepended to every key, so that several deployments or test runs can share one Redis. */
    private readonly prefix = 'menu-api:',
  ) {}

  async take(policy: BucketPolicy, key: string): Promise<RateDecision> {
    if (!this.redis.usable) return this.fallback.take(policy, key);
    try {
      const result = (await this.redis.script(
        TAKE,
        [`${this.prefix}rl:${policy.name}:${key}`],
        [policy.ratePerSecond, policy.burst],
      )) as [number, string];
      return decide(policy, Number(result[1]), result[0] === 1);
    } catch (error) {
      this.redis.failed(error);
      return this.fallback.take(policy, key);
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
  }
}
