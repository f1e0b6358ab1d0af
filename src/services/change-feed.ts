import type { Change, ChangeKind, Store } from '../store/store.js';

export type ChangeListener = (change: Change) => void;

/**
 * After an outage the feed tells every listener that everything changed: one notice per kind, each
 * with `dispensaryId` and `subject` null, which every listener reads as "drop all of this kind".
 */
const EVERYTHING: readonly ChangeKind[] = ['dispensary', 'store', 'menu', 'credential', 'admin_key'];

/** After a failed read, how soon to read again when the next periodic poll is further off (ms). */
export const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * Reads the store's change notices and hands each to the listeners (the caches).
 * Polling catches writes by other processes (the CLI, other servers); a process that writes
 * calls `poll()` itself right after, so its own caches drop the change before it answers.
 * When the store can push notices (PostgreSQL LISTEN/NOTIFY), each notice triggers a poll at once;
 * the periodic poll stays as the fallback for a notice lost while the listening connection was down.
 */
export class ChangeFeed {
  private lastSeq = 0;
  private readonly listeners: ChangeListener[] = [];
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  /** Set while the last read of the feed failed: the caches may be stale, so nothing is answered from them. */
  private lastFailure: unknown;

  constructor(
    private readonly store: Store,
    private readonly pollIntervalMs: number,
    /** Told of the read that starts a run of failures (not of each retry), and of the read that ends it. */
    private readonly report: { failed(error: unknown): void; recovered(): void } | undefined = undefined,
  ) {}

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    this.lastSeq = await this.store.changes.lastSeq();
    this.timer = setInterval(() => {
      this.poll().catch(() => {
        // Retried soon (retryAfterFailure); the caches stay as they were until a read succeeds.
      });
    }, this.pollIntervalMs);
    this.timer.unref();
    if (this.store.listen) {
      // A burst of notices (a busy writer) becomes one read: notices that arrive before the queued
      // read starts are covered by it.
      let queued = false;
      this.unlisten = await this.store.listen(() => {
        if (queued) return;
        queued = true;
        setImmediate(() => {
          queued = false;
          this.poll().catch(() => {});
        });
      });
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.unlisten?.().catch(() => {});
    this.unlisten = undefined;
  }

  /**
   * After a failed read, whoever polled: read again within RETRY_AFTER_FAILURE_MS. While the last read
   * failed the server answers 503 (nothing from caches that may be stale), so waiting for the next
   * periodic poll would keep it refusing for up to `--change-poll-ms` after the database is back: a
   * minute, where LISTEN/NOTIFY let an operator make the poll that rare.
   */
  private retryAfterFailure(): void {
    if (this.timer === undefined || this.retryTimer !== undefined) return;
    if (this.pollIntervalMs <= RETRY_AFTER_FAILURE_MS) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.poll().catch(() => {});
    }, RETRY_AFTER_FAILURE_MS);
    this.retryTimer.unref();
  }

  /** False while the database cannot be read: what the caches hold may be out of date. */
  get reachable(): boolean {
    return this.lastFailure === undefined;
  }

  /** Why the last read of the feed failed, while it is failing. */
  get failure(): unknown {
    return this.lastFailure;
  }

  /**
   * The first read after a failure: whatever was missed, or undone (a SQLite file restored from a
   * backup numbers its changes anew), every cache starts afresh from the current change number.
   */
  private async recover(): Promise<void> {
    const seq = await this.store.changes.lastSeq();
    this.lastFailure = undefined;
    this.report?.recovered();
    this.lastSeq = seq;
    for (const kind of EVERYTHING) {
      for (const listener of this.listeners) listener({ seq, kind, dispensaryId: null, subject: null });
    }
  }

  /** One poll at a time; a caller arriving during a poll gets a fresh one after it. */
  async poll(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    this.inFlight = this.readChanges();
    try {
      await this.inFlight;
    } finally {
      this.inFlight = undefined;
    }
  }

  private async readChanges(): Promise<void> {
    let changes: Change[];
    try {
      if (this.lastFailure !== undefined) {
        await this.recover();
        return;
      }
      changes = await this.store.changes.since(this.lastSeq);
      this.lastFailure = undefined;
    } catch (error) {
      if (this.lastFailure === undefined) this.report?.failed(error);
      this.lastFailure = error;
      this.retryAfterFailure();
      throw error;
    }
    for (const change of changes) {
      for (const listener of this.listeners) listener(change);
      this.lastSeq = change.seq;
    }
  }
}
