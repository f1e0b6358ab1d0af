import type { LoginGuardLimits } from '../../config.js';
import { addressKey } from '../../infra/address.js';

/**
 * Counts failed logins and refuses further attempts, before any password hashing, once one of three
 * counters reaches its limit within the window:
 * - one username from one address (guessing one account),
 * - one address across all usernames (guessing many accounts; failed admin keys count here too),
 * - one username across all addresses (distributed guessing; looser, as it can lock the owner out).
 * Each counter starts at its first failure and is forgotten when the window has passed.
 */
export { DEFAULT_LOGIN_GUARD, type LoginGuardLimits } from '../../config.js';

/** Who is trying: a username (absent for admin keys) and the client address (absent outside HTTP). */
export interface LoginAttempt {
  username?: string;
  address?: string;
}

export interface LoginVerdict {
  allowed: boolean;
  /** When refused: seconds until the counter that refused is forgotten. */
  retryAfterSeconds: number;
  /** Failures already counted for this username from this address (a success clears them). */
  pairFailures: number;
}

export interface LoginGuard {
  /**
   * Whether the attempt may go on. Answers at once when the counters are in this process (memory),
   * else with a promise (Redis): it runs before every credential check.
   */
  check(attempt: LoginAttempt): LoginVerdict | Promise<LoginVerdict>;
  failed(attempt: LoginAttempt): Promise<void>;
  /** The right password: the username-and-address counter starts again. */
  succeeded(attempt: LoginAttempt): Promise<void>;
  close(): Promise<void>;
}

export type CounterKind = 'pair' | 'address' | 'username';

export interface Counter {
  kind: CounterKind;
  key: string;
  limit: number;
}

/** The counters an attempt touches, with their limits; counters turned off (0) are left out. */
export function countersOf(attempt: LoginAttempt, limits: LoginGuardLimits): Counter[] {
  const counters: Counter[] = [];
  const { username } = attempt;
  const address = attempt.address === undefined ? undefined : addressKey(attempt.address);
  if (username !== undefined && address !== undefined && limits.perPair > 0) {
    counters.push({ kind: 'pair', key: `p:${address}|${username}`, limit: limits.perPair });
  }
  if (address !== undefined && limits.perAddress > 0) {
    counters.push({ kind: 'address', key: `a:${address}`, limit: limits.perAddress });
  }
  if (username !== undefined && limits.perUsername > 0) {
    counters.push({ kind: 'username', key: `u:${username}`, limit: limits.perUsername });
  }
  return counters;
}

/** The verdict from each counter's current count and the ms until it is forgotten. */
export function verdictOf(counters: Counter[], counts: { count: number; ttlMs: number }[]): LoginVerdict {
  let retryAfterSeconds = 0;
  let pairFailures = 0;
  counters.forEach((counter, index) => {
    const { count, ttlMs } = counts[index] ?? { count: 0, ttlMs: 0 };
    if (counter.kind === 'pair') pairFailures = count;
    if (count >= counter.limit) {
      retryAfterSeconds = Math.max(retryAfterSeconds, Math.max(1, Math.ceil(ttlMs / 1000)));
    }
  });
  return { allowed: retryAfterSeconds === 0, retryAfterSeconds, pairFailures };
}
