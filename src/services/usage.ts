import type { Store, UsageCount } from '../store/store.js';

const HOUR_MS = 60 * 60 * 1000;
/** Counters reach the database at most this often: never a row, nor a write, per request. */
export const USAGE_FLUSH_MS = 60_000;

/**
 * Requests per credential per hour, counted in memory (one Map increment per granted request) and added
 * to the database's counters at most once a minute, and when the server stops. Reads add what this
 * process has not flushed yet.
 */
export class UsageCounter {
  /** `hour\nusername` to requests not yet in the database, for the hours before the current one. */
  private pending = new Map<string, number>();
  /**
   * The current hour's requests by username: counting needs no date or key string per request
   * (`count` runs on every granted request; bench/PROFILE.md). Moved into `pending` when the hour ends
   * and on every flush or read.
   */
  private hour = Number.NaN;
  private hourRequests = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly flushMs = USAGE_FLUSH_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.flush().catch(() => {
        // Kept in memory (flush puts them back) and tried again on the next tick.
      });
    }, this.flushMs);
    this.timer.unref();
  }

  count(username: string, at = Date.now()): void {
    const hour = Math.floor(at / HOUR_MS);
    if (hour !== this.hour) {
      this.settleHour();
      this.hour = hour;
    }
    this.hourRequests.set(username, (this.hourRequests.get(username) ?? 0) + 1);
  }

  /** Moves the current hour's counts into `pending`. */
  private settleHour(): void {
    if (this.hourRequests.size === 0) return;
    const hour = new Date(this.hour * HOUR_MS).toISOString();
    for (const [username, requests] of this.hourRequests) {
      const key = `${hour}\n${username}`;
      this.pending.set(key, (this.pending.get(key) ?? 0) + requests);
    }
    this.hourRequests = new Map();
  }

  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.settleHour();
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.store.usage.add(toCounts(batch)).catch((error: unknown) => {
      for (const [key, requests] of batch) this.pending.set(key, (this.pending.get(key) ?? 0) + requests);
      throw error;
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => {});
  }

  /**
   * Requests per credential per hour since the start of the hour `hours` hours ago, oldest first,
   * unflushed ones included; of one credential only when `username` is given.
   */
  async list(hours: number, only: { username?: string; now?: number } = {}): Promise<UsageCount[]> {
    const { username, now = Date.now() } = only;
    const since = hourOf(now - hours * HOUR_MS);
    const totals = new Map<string, number>();
    for (const row of await this.store.usage.since(since))
      totals.set(`${row.hour}\n${row.username}`, row.requests);
    this.settleHour();
    for (const [key, requests] of this.pending) {
      if (key >= since) totals.set(key, (totals.get(key) ?? 0) + requests);
    }
    return toCounts(totals)
      .filter((count) => username === undefined || count.username === username)
      .sort((a, b) => a.hour.localeCompare(b.hour) || a.username.localeCompare(b.username));
  }
}

function hourOf(at: number): string {
  return new Date(Math.floor(at / HOUR_MS) * HOUR_MS).toISOString();
}

function toCounts(counts: Map<string, number>): UsageCount[] {
  return [...counts].map(([key, requests]) => {
    const [hour, username] = key.split('\n') as [string, string];
    return { username, hour, requests };
  });
}
