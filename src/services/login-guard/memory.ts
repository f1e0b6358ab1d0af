import type { LoginAttempt, LoginGuard, LoginGuardLimits, LoginVerdict } from './login-guard.js';
import { countersOf, verdictOf } from './login-guard.js';

interface Count {
  count: number;
  expiresAt: number;
}

export interface MemoryLoginGuardOptions {
  /** Most counters kept; past it the least recently touched are forgotten. */
  maxCounters?: number;
  now?: () => number;
}

const NO_FAILURES: LoginVerdict = Object.freeze({ allowed: true, retryAfterSeconds: 0, pairFailures: 0 });

/** Failure counters in this process's memory: the default, and the fallback while Redis is away. */
export class MemoryLoginGuard implements LoginGuard {
  private readonly counts = new Map<string, Count>();
  private readonly maxCounters: number;
  private readonly now: () => number;

  constructor(
    private readonly limits: LoginGuardLimits,
    options: MemoryLoginGuardOptions = {},
  ) {
    this.maxCounters = options.maxCounters ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  check(attempt: LoginAttempt): LoginVerdict {
    // Nobody has failed lately: the usual case, answered without building the counters' keys.
    if (this.counts.size === 0) return NO_FAILURES;
    const now = this.now();
    const counters = countersOf(attempt, this.limits);
    return verdictOf(
      counters,
      counters.map(({ key }) => {
        const entry = this.live(key, now);
        return entry ? { count: entry.count, ttlMs: entry.expiresAt - now } : { count: 0, ttlMs: 0 };
      }),
    );
  }

  async failed(attempt: LoginAttempt): Promise<void> {
    this.failedNow(attempt);
  }

  failedNow(attempt: LoginAttempt): void {
    const now = this.now();
    for (const { key } of countersOf(attempt, this.limits)) {
      const entry = this.live(key, now) ?? { count: 0, expiresAt: now + this.limits.windowMs };
      entry.count += 1;
      this.counts.delete(key);
      this.counts.set(key, entry);
    }
    if (this.counts.size > this.maxCounters) this.evict(now);
  }

  async succeeded(attempt: LoginAttempt): Promise<void> {
    this.succeededNow(attempt);
  }

  succeededNow(attempt: LoginAttempt): void {
    const pair = countersOf(attempt, this.limits).find((counter) => counter.kind === 'pair');
    if (pair) this.counts.delete(pair.key);
  }

  async close(): Promise<void> {
    this.counts.clear();
  }

  private live(key: string, now: number): Count | undefined {
    const entry = this.counts.get(key);
    if (entry && entry.expiresAt <= now) {
      this.counts.delete(key);
      return undefined;
    }
    return entry;
  }

  private evict(now: number): void {
    for (const [key, entry] of this.counts) {
      if (entry.expiresAt <= now) this.counts.delete(key);
    }
    const target = Math.floor(this.maxCounters * 0.9);
    for (const key of this.counts.keys()) {
      if (this.counts.size <= target) break;
      this.counts.delete(key);
    }
  }
}
