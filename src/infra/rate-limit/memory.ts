import { type BucketPolicy, decide, type RateDecision, type RateLimiter } from './rate-limiter.js';

interface Bucket {
  tokens: number;
  /** When `tokens` was computed, ms. */
  at: number;
}

export interface MemoryRateLimiterOptions {
  /** Most buckets kept; past it the least recently used (nearly always full ones) are forgotten. */
  maxBuckets?: number;
  now?: () => number;
}

/** Buckets in this process's memory: the default, and the fallback while Redis is away. */
export class MemoryRateLimiter implements RateLimiter {
  /** In least-recently-used order: every take moves its bucket to the end. */
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxBuckets: number;
  private readonly now: () => number;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.maxBuckets = options.maxBuckets ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  async take(policy: BucketPolicy, key: string): Promise<RateDecision> {
    return this.takeNow(policy, key);
  }

  /** The same as `take`, synchronously: the Redis limiter's fallback must not wait either. */
  takeNow(policy: BucketPolicy, key: string): RateDecision {
    const id = `${policy.name}\0${key}`;
    const now = this.now();
    const bucket = this.buckets.get(id);
    let tokens = bucket
      ? Math.min(policy.burst, bucket.tokens + (Math.max(0, now - bucket.at) * policy.ratePerSecond) / 1000)
      : policy.burst;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.buckets.delete(id);
    this.buckets.set(id, { tokens, at: now });
    if (this.buckets.size > this.maxBuckets) this.evict();
    return decide(policy, tokens, allowed);
  }

  get size(): number {
    return this.buckets.size;
  }

  private evict(): void {
    const target = Math.floor(this.maxBuckets * 0.9);
    for (const id of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(id);
    }
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
