/** Retries of 429 and 503: exponential backoff with full jitter, or what Retry-After asks. */

export interface RetryPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** The first backoff step, ms: attempt n waits a random time below base · 2^n (capped). */
  baseMs: number;
  /** The longest single wait, ms. A Retry-After beyond it is not waited for: the error is thrown. */
  maxDelayMs: number;
  random: () => number;
}

/** Retry-After in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before attempt `attempt + 1` (attempt 0 was the first), or undefined when not to
 * retry. A Retry-After is honoured (never retried sooner), with up to one base step of jitter added so
 * that many clients told the same time do not return at once.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
): number | undefined {
  if (attempt >= policy.retries) return undefined;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxDelayMs) return undefined;
    return retryAfterMs + policy.random() * Math.min(policy.baseMs, policy.maxDelayMs - retryAfterMs);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** attempt);
  return policy.random() * ceiling;
}

/** Waits `ms`, or rejects when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
