import { type BucketPolicy, decide, type RateDecision, type RateLimiter } from './rate-limiter.js';

interface Bucket {
  tokens: number;
  /** When `tokens` was computed, ms. */
  at: number;
}

export interface MemoryRateLimiterOptions {
  /** Most buckets kept; past it, buckets that have refilled are forgotten first, then the oldest. */
  maxBuckets?: number;
  now?: () => number;
}

/** Buckets in this process's memory: the default, and the fallback while Redis is away. */
export class MemoryRateLimiter implements RateLimiter {
  /**
   * One map per policy, keyed by the caller's own key string: a take allocates nothing (no joined
   * key, no new bucket once it exists), because it runs on every request. In insertion order.
   */
  private readonly policies = new Map<string, { policy: BucketPolicy; buckets: Map<string, Bucket> }>();
  private count = 0;
  private readonly maxBuckets: number;
  private readonly now: () => number;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.maxBuckets = options.maxBuckets ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  take(policy: BucketPolicy, key: string): RateDecision {
    let buckets = this.policies.get(policy.name)?.buckets;
    if (!buckets) {
      buckets = new Map();
      this.policies.set(policy.name, { policy, buckets });
    }
    const now = this.now();
    const bucket = buckets.get(key);
    let tokens = bucket ? refilled(policy, bucket, now) : policy.burst;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    if (bucket) {
      bucket.tokens = tokens;
      bucket.at = now;
    } else {
      buckets.set(key, { tokens, at: now });
      if (++this.count > this.maxBuckets) this.evict(now);
    }
    return decide(policy, tokens, allowed);
  }

  get size(): number {
    return this.count;
  }

  /**
   * Makes room (down to 90 % of the maximum, so that it runs rarely). A bucket that has refilled is
   * the same as no bucket, so those go first and nobody gains a token; only a flood of distinct keys
   * beyond the maximum forgets buckets still in use, the oldest first.
   */
  private evict(now: number): void {
    const target = Math.floor(this.maxBuckets * 0.9);
    for (const { policy, buckets } of this.policies.values()) {
      for (const [key, bucket] of buckets) {
        if (refilled(policy, bucket, now) < policy.burst) continue;
        buckets.delete(key);
        this.count--;
      }
    }
    for (const { buckets } of this.policies.values()) {
      for (const key of buckets.keys()) {
        if (this.count <= target) return;
        buckets.delete(key);
        this.count--;
      }
    }
  }

  async close(): Promise<void> {
    this.policies.clear();
    this.count = 0;
  }
}

/** The tokens a bucket holds at `now`: what it had, plus the refill since, up to the burst. */
function refilled(policy: BucketPolicy, bucket: Bucket, now: number): number {
  return Math.min(policy.burst, bucket.tokens + (Math.max(0, now - bucket.at) * policy.ratePerSecond) / 1000);
}
