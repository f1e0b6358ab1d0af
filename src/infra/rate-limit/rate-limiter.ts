/**
 * Token buckets: each key has a bucket of `burst` tokens that refills at `ratePerSecond`; a request
 * takes one token, and is refused when none is left.
 */
export interface BucketPolicy {
  /** Names the policy in the RateLimit headers and keeps the keys of policies apart. */
  name: string;
  ratePerSecond: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the next request would be allowed (0 when this one was). */
  retryAfterSeconds: number;
  /**
   * Seconds until the bucket is full again; when refused, the same as `retryAfterSeconds` (the draft
   * asks that `t` and Retry-After name the same moment).
   */
  resetSeconds: number;
}

/** A bucket a request was counted in, and what it said (src/http/pipeline/rate-limit.ts notes them). */
export interface NotedLimit {
  policy: BucketPolicy;
  decision: RateDecision;
}

/** What the rate limits note on a request: a Fastify request, or one the read lane answers. */
export interface CountedRequest {
  rateLimits: NotedLimit[] | null;
}

export interface RateLimiter {
  /**
   * Takes one token from the bucket of `key` under `policy`. Never rejects. Answers at once when the
   * bucket is in this process (memory), else with a promise (Redis): the check runs on every request,
   * and a promise where none is needed costs a microtask and garbage each time.
   */
  take(policy: BucketPolicy, key: string): RateDecision | Promise<RateDecision>;
  close(): Promise<void>;
}

/** The decision for a bucket holding `tokens` after the request was counted (or refused). */
export function decide(policy: BucketPolicy, tokens: number, allowed: boolean): RateDecision {
  const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / policy.ratePerSecond));
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterSeconds,
    resetSeconds: allowed
      ? Math.max(0, Math.ceil((policy.burst - tokens) / policy.ratePerSecond))
      : retryAfterSeconds,
  };
}

/** The seconds a full bucket takes to drain and refill: the window `w` of the RateLimit-Policy header. */
export function windowSeconds(policy: BucketPolicy): number {
  return Math.max(1, Math.ceil(policy.burst / policy.ratePerSecond));
}
